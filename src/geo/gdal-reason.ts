/**
 * GDAL quotes the SQL it runs on a file when the query fails (`sqlite3_get_table(SELECT
 * c.table_name, … FROM gpkg_contents …) failed: no such column: table_name`). A caller reads
 * only what failed: the call and its statement become "a query of the file" (all of the rest when GDAL's message was cut short).
 */
const SQL_CALL =
  /\b\w+\(\s*(?:SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|WITH|DROP|ALTER)\b[\s\S]*?(?:\)(?=\s*failed\b|:\s)|$)/gi;

/** A statement GDAL quotes without a call around it (`… in SELECT … FROM …`). */
const BARE_SQL = /\b(?:SELECT\b[\s\S]*?\bFROM|INSERT\s+INTO|DELETE\s+FROM|PRAGMA\s+\w+)\b[\s\S]*$/g;

/** GDAL's reason without the SQL it quotes. */
export function withoutSql(reason: string): string {
  return reason
    .replace(SQL_CALL, (call) => (call.endsWith(')') ? 'a query of the file' : 'a query of the file failed'))
    .replace(BARE_SQL, 'a query of the file');
}

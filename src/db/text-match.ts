import { type RawBuilder, sql } from 'kysely';

/**
 * A column holding `text`, case-insensitively, as plain text: the `%`, `_` and `\` people type
 * match themselves (LIKE's wildcards escaped), the same on SQLite and PostgreSQL. Case is
 * folded by `lower()`: all of Unicode on PostgreSQL, ASCII letters only on SQLite.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
  return sql<boolean>`lower(${sql.ref(column)}) LIKE ${pattern} ESCAPE '\\'`;
}

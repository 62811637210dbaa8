import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyLine } from './copy-text.js';

/** Rows to COPY, in pieces as they are made (a piece is one chunk of the stream). */
export type CopyRows = AsyncIterable<readonly object[]> | Iterable<readonly object[]>;

/**
 * Writes rows into `table` with one `COPY ... FROM STDIN` (PostgreSQL), its own transaction:
 * each row's values under `columns`, encoded as a bound parameter would be (db/copy-text.ts).
 * The rows are read as the database takes them, so they can be made meanwhile. Resolves to
 * how many rows were written; when the rows or the database fail, none is.
 */
export type CopyInto = (table: string, columns: readonly string[], rows: CopyRows) => Promise<number>;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** COPYs at the same time: a bulk import starts the next while the database commits the last. */
const COPY_CONNECTIONS = 2;

/**
 * `CopyInto` on connections of its own (at most `COPY_CONNECTIONS`, closed when idle): a
 * COPY holds its connection while its rows are made, and making them may query the
 * database (a job's progress), which the service's pool then still answers, however small.
 */
export function copyConnections(connectionString: string): { copyInto: CopyInto; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString, max: COPY_CONNECTIONS, application_name: 'maproom copy' });
  pool.on('error', () => undefined); // an idle connection the server ended is replaced on demand
  const copyInto: CopyInto = async (table, columns, rows) => {
    for (const name of [table, ...columns]) {
      if (!IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${JSON.stringify(name)}`);
    }
    const client = await pool.connect();
    let failure: Error | undefined;
    try {
      const copy = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
      await pipeline(Readable.from(textOf(rows, columns)), copy);
      return copy.rowCount;
    } catch (error) {
      failure = error as Error;
      throw error;
    } finally {
      client.release(failure); // a connection whose COPY failed is closed, not reused
    }
  };
  // Closing twice (a database closed again) is no error.
  let closing: Promise<void> | undefined;
  return { copyInto, close: () => (closing ??= pool.end()) };
}

/** One string per piece of rows: a chunk of the COPY, not a message per row. */
async function* textOf(rows: CopyRows, columns: readonly string[]): AsyncGenerator<string> {
  for await (const piece of rows) {
    if (!piece.length) continue;
    let text = '';
    for (const row of piece) text += copyLine(row, columns);
    yield text;
  }
}

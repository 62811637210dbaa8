import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { assertSafeKey } from '../infra/blob-store.js';

/** The manifest's file in a backup folder: written last, so a folder without it is no backup. */
export const MANIFEST = 'manifest.json';

const Entry = Type.Object({
  /** The file's path in the backup folder (`/`-separated). */
  path: Type.String({ minLength: 1 }),
  bytes: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
export type Entry = Static<typeof Entry>;

const Manifest = Type.Object({
  format: Type.Literal('maproom-backup'),
  version: Type.Literal(1),
  createdAt: Type.String(),
  dialect: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  /** The database's last migration, for the release that restores it. */
  migration: Type.String(),
  /** How many rows the main tables held in the snapshot (what `verify` reports). */
  holds: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  database: Entry,
  /** The session-signing secret the service generated (SQLite without JWT_SECRET), if any. */
  secret: Type.Optional(Entry),
  /** Every stored file: its key is its path under `files/`. */
  files: Type.Array(Entry),
});
export type Manifest = Static<typeof Manifest>;

/** A backup that cannot be read or does not match its manifest. */
export class BackupDamaged extends Error {}

export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  await writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
}

export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new BackupDamaged(`${dir} holds no ${MANIFEST}: it is not a backup, or one that did not finish`);
    throw error;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new BackupDamaged(`${MANIFEST} in ${dir} is not JSON`);
  }
  if (!Value.Check(Manifest, manifest)) {
    const first = [...Value.Errors(Manifest, manifest)][0];
    throw new BackupDamaged(
      `${MANIFEST} in ${dir} is not a Maproom backup manifest (${first?.instancePath} ${first?.message})`,
    );
  }
  const unsafe = [manifest.database, manifest.secret, ...manifest.files].find(
    (entry) => entry && (path.isAbsolute(entry.path) || entry.path.split('/').includes('..')),
  );
  if (unsafe) throw new BackupDamaged(`${MANIFEST} in ${dir} names a file outside the backup: ${unsafe.path}`);
  for (const file of manifest.files) {
    if (!file.path.startsWith(FILES_FOLDER))
      throw new BackupDamaged(`${MANIFEST} lists a stored file outside files/: ${file.path}`);
    try {
      assertSafeKey(file.path.slice(FILES_FOLDER.length));
    } catch {
      throw new BackupDamaged(`${MANIFEST} lists a stored file whose key is not one: ${file.path}`);
    }
  }
  return manifest;
}

/** Where a backup keeps the stored files, each at its key. */
export const FILES_FOLDER = 'files/';

/**
 * The size and SHA-256 of a file in the backup folder `dir`: a regular file there, not a link
 * or a device, and not reached through a linked folder (ENOENT otherwise, as if missing).
 */
export async function digestOf(dir: string, relative: string): Promise<{ bytes: number; sha256: string }> {
  const file = path.join(dir, relative);
  const [root, real, found] = await Promise.all([realpath(dir), realpath(file), lstat(file)]);
  if (!found.isFile() || real !== path.join(root, relative))
    throw Object.assign(new Error(`${relative} is not a file of the backup`), { code: 'ENOENT' });
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(file), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { bytes, sha256: hash.digest('hex') };
}

/** An entry for a file already in the backup folder. */
export async function entryOf(dir: string, relative: string): Promise<Entry> {
  return { path: relative, ...(await digestOf(dir, relative)) };
}

/** What is wrong with each damaged or missing file of the backup (empty when every checksum matches). */
export async function damageIn(dir: string, manifest: Manifest): Promise<string[]> {
  const entries = [manifest.database, ...(manifest.secret ? [manifest.secret] : []), ...manifest.files];
  const problems: string[] = [];
  for (const entry of entries) {
    try {
      const found = await digestOf(dir, entry.path);
      if (found.bytes !== entry.bytes || found.sha256 !== entry.sha256) problems.push(`${entry.path}: changed`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      problems.push(`${entry.path}: missing`);
    }
  }
  return problems;
}

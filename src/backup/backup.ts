import { constants } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Config, sqlitePathOf } from '../config.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { blobStoreOf } from '../infra/configured-blob-store.js';
import {
  BackupRefused,
  copySqlite,
  dumpPostgres,
  postgresIsEmpty,
  restorePostgres,
  restoreSqlite,
  sqliteIsEmpty,
} from './database-copy.js';
import {
  BackupDamaged,
  damageIn,
  entryOf,
  FILES_FOLDER,
  MANIFEST,
  type Manifest,
  readManifest,
  writeManifest,
} from './manifest.js';
import { copyStoredFilesIn, copyStoredFilesOut, storeIsEmpty } from './stored-files-copy.js';

/** The session-signing secret a service without JWT_SECRET generates in DATA_DIR. */
const SECRET_FILE = 'jwt-secret';

const dialectOf = (config: Config) => (config.databaseUrl ? 'postgres' : 'sqlite');
const databaseFileOf = (dialect: Manifest['dialect']) =>
  dialect === 'postgres' ? 'database.pgdump' : 'database.sqlite';

/**
 * Claims `out` for this backup: makes it (its parent too), or takes it when it is an empty
 * folder of this user's; answers whether it made it, to know what to remove after a failure.
 * A backup holds password and token hashes and the signing secret: the folder is its owner's
 * only (0700), and one made meanwhile by someone else is refused (`mkdir` without `recursive`).
 */
async function claimFolder(out: string): Promise<boolean> {
  await mkdir(path.dirname(out), { recursive: true });
  try {
    await mkdir(out, { mode: 0o700 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const found = await lstat(out);
  if (!found.isDirectory() || found.uid !== process.getuid?.())
    throw new BackupRefused(`${out} is not a folder of this user's: back up into a new or empty folder`);
  if ((await readdir(out)).length > 0)
    throw new BackupRefused(`${out} is not empty: back up into a new or empty folder`);
  await chmod(out, 0o700);
  return false;
}

/**
 * Backs up a running deployment into `out`: first a consistent snapshot of the database, then
 * every stored file, then the manifest (their sizes and checksums). The database is the
 * reference: every write acknowledged before the backup began is in it, with its files.
 */
export async function backup(config: Config, out: string): Promise<Manifest> {
  const made = await claimFolder(out);
  try {
    const dialect = dialectOf(config);
    const databaseFile = databaseFileOf(dialect);
    const snapshot = config.databaseUrl
      ? await dumpPostgres(config.databaseUrl, path.join(out, databaseFile))
      : await copySqlite(sqlitePathOf(config), path.join(out, databaseFile));
    const secret = await copyGeneratedSecret(config, out);
    const files = await copyStoredFilesOut(await blobStoreOf(config), out);
    const manifest: Manifest = {
      format: 'maproom-backup',
      version: 1,
      createdAt: new Date().toISOString(),
      dialect,
      ...snapshot,
      database: await entryOf(out, databaseFile),
      ...(secret && { secret }),
      files,
    };
    await writeManifest(out, manifest);
    return manifest;
  } catch (error) {
    // Only what this backup wrote: the folder it made, or its own entries in the one it took.
    const written = made ? [out] : [databaseFileOf(dialectOf(config)), SECRET_FILE, FILES_FOLDER, MANIFEST];
    for (const entry of written) await rm(path.resolve(out, entry), { recursive: true, force: true });
    throw error;
  }
}

async function copyGeneratedSecret(config: Config, out: string) {
  if (config.jwtSecret) return undefined;
  const source = path.join(config.dataDir, SECRET_FILE);
  if (!(await stat(source).catch(() => null))) return undefined;
  await copyFile(source, path.join(out, SECRET_FILE));
  return entryOf(out, SECRET_FILE);
}

/** Reads a backup and checks every checksum: the manifest, and what is damaged or missing. */
export async function verify(from: string): Promise<{ manifest: Manifest; damage: string[] }> {
  const manifest = await readManifest(from);
  return { manifest, damage: await damageIn(from, manifest) };
}

/**
 * Restores a backup into an empty deployment (database and store), or changes nothing: the
 * backup is verified first, then the files are stored, then the database is put in place
 * (PostgreSQL in one transaction); a failure takes back the files already stored.
 */
export async function restore(config: Config, from: string): Promise<Manifest> {
  const { manifest, damage } = await verify(from);
  if (damage.length) throw new BackupDamaged(`The backup is damaged: ${damage.join('; ')}`);
  const dialect = dialectOf(config);
  if (manifest.dialect !== dialect)
    throw new BackupRefused(`This is a backup of a ${manifest.dialect} deployment; this deployment is on ${dialect}`);
  let unlock: (() => void) | undefined;
  if (dialect === 'sqlite') {
    await mkdir(config.dataDir, { recursive: true });
    try {
      unlock = lockDataDir(config.dataDir);
    } catch (error) {
      throw new BackupRefused((error as Error).message);
    }
  }
  try {
    const store = await blobStoreOf(config);
    const databaseEmpty = config.databaseUrl
      ? await postgresIsEmpty(config.databaseUrl)
      : sqliteIsEmpty(sqlitePathOf(config));
    if (!databaseEmpty || !(await storeIsEmpty(store)))
      throw new BackupRefused(
        `The ${databaseEmpty ? 'file store' : 'database'} is not empty: a backup is restored into a new deployment`,
      );
    const secretFile = path.join(config.dataDir, SECRET_FILE);
    const restoresSecret = Boolean(manifest.secret && !config.jwtSecret);
    if (restoresSecret && (await lstat(secretFile).catch(() => null)))
      throw new BackupRefused(`${secretFile} exists: a backup is restored into a new deployment`);
    const stored: string[] = [];
    let wroteSecret = false;
    try {
      await copyStoredFilesIn(store, from, manifest.files, stored);
      if (restoresSecret) {
        await copyFile(path.join(from, manifest.secret!.path), secretFile, constants.COPYFILE_EXCL);
        wroteSecret = true;
        await chmod(secretFile, 0o600);
      }
      const dump = path.join(from, manifest.database.path);
      if (config.databaseUrl) await restorePostgres(config.databaseUrl, dump);
      else await restoreSqlite(dump, sqlitePathOf(config));
    } catch (error) {
      await Promise.allSettled(stored.map((key) => store.delete(key)));
      if (wroteSecret) await rm(secretFile, { force: true });
      throw error;
    }
    return manifest;
  } finally {
    unlock?.();
  }
}

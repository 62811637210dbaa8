import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { admin, assertRestored, keepWriting, type Seed, seedDeployment } from '../support/backups.js';
import { type Instance, startInstance } from '../support/instances.js';

/**
 * `maproom-admin` on a SQLite deployment (processes, as an operator runs them): a backup of a
 * running service while it takes writes, `verify`, and `restore` into a new data directory;
 * what each refuses; and scheduled backups with their retention.
 */

const scratch = mkdtempSync(path.join(tmpdir(), 'maproom-backups-'));
const dataDir = path.join(scratch, 'data');
const running: Instance[] = [];
after(async () => {
  for (const instance of running) await instance.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function start(name: string, env: Record<string, string>) {
  const instance = await startInstance(name, env);
  running.push(instance);
  return instance;
}

/** The names and contents of every file under a folder (to show that nothing changed). */
function snapshotOf(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return Object.fromEntries(
    files.map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return [path.relative(dir, file), readFileSync(file).toString('base64')];
    }),
  );
}

describe('backup, verify and restore of a SQLite deployment', () => {
  let seed: Seed;
  let before_: string[];
  const out = path.join(scratch, 'backup');

  before(async () => {
    const source = await start('source', { DATA_DIR: dataDir });
    seed = await seedDeployment(source);
    const writes = keepWriting(source, seed);
    while (writes.acknowledged.length < 20) await sleep(5);
    const began = Date.now();
    before_ = writes.acknowledged.filter((write) => write.at <= began).map((write) => write.id);
    const made = await admin(['backup', '--out', out], { DATA_DIR: dataDir });
    await writes.stop();
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /A backup of a SQLite deployment/);
  });

  test('verify says what the backup holds and that every checksum matches', async () => {
    const verified = await admin(['verify', out], {});
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /1 users, 1 rooms, \d+ markers/);
    assert.match(verified.stdout, /the session-signing secret the service generated/);
    assert.match(verified.stdout, /Every checksum matches/);
    assert.equal(statSync(out).mode & 0o777, 0o700, 'only its owner may read a backup');
    const markers = Number(/(\d+) markers/.exec(verified.stdout)![1]);
    assert.ok(markers >= before_.length + 1, `${markers} markers hold the ${before_.length + 1} written before`);
  });

  test('restore into a new data directory brings back the writes, the photo, the session and the room token', async () => {
    const restoredDir = path.join(scratch, 'restored');
    const restored = await admin(['restore', '--from', out], { DATA_DIR: restoredDir });
    assert.equal(restored.code, 0, restored.stderr);
    const instance = await start('restored', { DATA_DIR: restoredDir });
    await assertRestored(instance, seed, before_);
  });

  test('restore refuses a deployment that is not empty, or running, and changes nothing', async () => {
    const before = snapshotOf(dataDir);
    const refused = await admin(['restore', '--from', out], { DATA_DIR: dataDir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /already using the data directory/);
    await running[0]!.stop();
    const notEmpty = await admin(['restore', '--from', out], { DATA_DIR: dataDir });
    assert.equal(notEmpty.code, 1);
    assert.match(notEmpty.stderr, /The database is not empty/);
    const after = snapshotOf(dataDir);
    for (const lock of Object.keys(after).filter((name) => name.startsWith('maproom.lock'))) delete after[lock];
    for (const lock of Object.keys(before).filter((name) => name.startsWith('maproom.lock'))) delete before[lock];
    assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort());
    assert.equal(after[`blobs/${seed.photoKey}`], before[`blobs/${seed.photoKey}`]);
  });

  test('a damaged backup fails verify (exit 1, naming the file) and is not restored', async () => {
    const damaged = path.join(scratch, 'damaged');
    rmSync(damaged, { recursive: true, force: true });
    const copy = await admin(['backup', '--out', damaged], { DATA_DIR: dataDir });
    assert.equal(copy.code, 0, copy.stderr);
    writeFileSync(path.join(damaged, 'files', seed.photoKey), 'not the photo');
    // A link to a file outside the backup, even with the right bytes, is no file of it.
    const thumb = path.join(damaged, 'files', seed.photoKey.replace(/\.jpg$/, '_thumb.jpg'));
    const outside = path.join(scratch, 'outside-thumb.jpg');
    copyFileSync(thumb, outside);
    rmSync(thumb);
    symlinkSync(outside, thumb);
    const verified = await admin(['verify', damaged], {});
    assert.equal(verified.code, 1);
    assert.match(verified.stderr, new RegExp(`files/${seed.photoKey}: changed`));
    assert.match(verified.stderr, /_thumb\.jpg: missing/);
    const target = path.join(scratch, 'from-damaged');
    const restored = await admin(['restore', '--from', damaged], { DATA_DIR: target });
    assert.equal(restored.code, 1);
    assert.match(restored.stderr, /damaged/);
    assert.deepEqual(Object.keys(snapshotOf(path.join(target, 'blobs'))), []);
    assert.equal(existsSync(path.join(target, 'maproom.db')), false);
  });

  test('usage errors exit 2; a folder that is not empty or not a backup exits 1', async () => {
    for (const args of [[], ['restore', 'x'], ['backup', '--out', 'a', '--bogus']]) {
      const answer = await admin(args, { DATA_DIR: dataDir });
      assert.equal(answer.code, 2, `${args.join(' ')}: ${answer.stderr}`);
    }
    const notEmpty = await admin(['backup', '--out', out], { DATA_DIR: dataDir });
    assert.equal(notEmpty.code, 1);
    assert.match(notEmpty.stderr, /is not empty/);
    const none = await admin(['verify', scratch], {});
    assert.equal(none.code, 1);
    assert.match(none.stderr, /holds no manifest\.json/);
  });
});

test('scheduled backups run at the cron times and keep the newest BACKUP_KEEP', async () => {
  const dir = path.join(scratch, 'scheduled');
  const instance = await start('scheduled', {
    DATA_DIR: path.join(scratch, 'scheduled-data'),
    BACKUP_SCHEDULE: '*/2 * * * * *',
    BACKUP_DIR: dir,
    BACKUP_KEEP: '2',
  });
  await seedDeployment(instance);
  const complete = () =>
    existsSync(dir) ? readdirSync(dir).filter((name) => existsSync(path.join(dir, name, 'manifest.json'))) : [];
  const seen = new Set<string>();
  while (seen.size < 4) {
    for (const name of complete()) seen.add(name);
    // The oldest goes once the newest is complete: for a moment there is one more.
    assert.ok(complete().length <= 3, `no more than BACKUP_KEEP backups are kept: ${complete()}`);
    await sleep(100);
  }
  for (const name of seen) assert.match(name, /^maproom-\d{8}T\d{6}Z$/);
  const newest = [...seen].sort().at(-1)!;
  const verified = await admin(['verify', path.join(dir, newest)], {});
  assert.equal(verified.code, 0, verified.stderr);
  assert.match(verified.stdout, /1 users, 1 rooms/);
  assert.doesNotMatch(instance.output(), /scheduled backup.*failed/i);
});

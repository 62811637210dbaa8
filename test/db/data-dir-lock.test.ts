import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { assertOk, buildTestApp, call, createRoom, signup, TEST_DB } from '../helpers.js';

/**
 * One service per SQLite data directory (docs/decisions.md, Storage): a second service on the same
 * DATA_DIR refuses to start, naming the directory; the lock is the operating system's, so it
 * goes with its process however that process ends.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LOCK_MODULE = path.join(ROOT, 'src/db/data-dir-lock.ts');

let dataDir: string;
const configOf = (dir: string) => loadConfig({}, { dataDir: dir, logLevel: 'silent' });

/** Asserts that starting a service on `dir` is refused with a message naming the directory (and the holder, when given). */
async function assertRefused(dir: string, holder?: number) {
  await assert.rejects(buildApp(configOf(dir)), (error: Error) => {
    assert.match(error.message, /already using the data directory/);
    assert.ok(error.message.includes(` ${path.resolve(dir)};`), error.message);
    assert.match(error.message, /PostgreSQL/);
    if (holder) assert.ok(error.message.includes(`(process ${holder})`), error.message);
    return true;
  });
}

/** Runs `node` with tsx on some code; resolves once it printed `ready` (or rejects when it exits first). */
function node(code: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
    child.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready: ${err}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

describe('one service per SQLite data directory', {
  skip: TEST_DB !== 'sqlite' && 'the lock is for SQLite data directories',
}, () => {
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-lock-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a second service in the same process is refused, naming the directory; once the first stops, it starts', async () => {
    const first = await buildApp(configOf(dataDir));
    try {
      await assertRefused(dataDir, process.pid);
      // A path naming the same directory differently is the same directory.
      await assertRefused(`${dataDir}/./`, process.pid);
      assert.equal(
        (await call(first.app, 'GET', '/api/health')).statusCode,
        200,
        'the first service is untouched by the refusal',
      );
    } finally {
      await first.app.close();
    }
    const second = await buildApp(configOf(dataDir));
    await second.app.close();
  });

  test('a service in another process holds the lock until that process dies, even by SIGKILL', async () => {
    const holder = await node(
      `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)}; lockDataDir(process.env.LOCK_DIR); console.log('ready'); setInterval(() => {}, 1 << 30);`,
      {
        LOCK_DIR: dataDir,
      },
    );
    try {
      await assertRefused(dataDir, holder.pid);
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
    }
    // Nothing to clean up: the kernel dropped the lock with the process.
    const app = await buildApp(configOf(dataDir));
    await app.app.close();
  });

  test('the service started from the command line prints the refusal and exits 1', async () => {
    const first = await buildApp(configOf(dataDir));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server.ts')], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, PORT: '18999', LOG_LEVEL: 'silent', DATABASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 1, stderr);
      assert.match(
        stderr,
        /Maproom failed to start: Another Maproom \(process \d+\) is already using the data directory/,
      );
      assert.ok(stderr.includes(path.resolve(dataDir)), stderr);
    } finally {
      await first.app.close();
    }
  });

  test('a lock file left by an earlier version (a process id as text) is taken over when its process is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await exited(gone);
    writeFileSync(path.join(dataDir, 'maproom.lock'), String(gone.pid));
    const app = await buildApp(configOf(dataDir));
    try {
      await assertRefused(dataDir, process.pid);
    } finally {
      await app.app.close();
    }
  });

  test('TestApp.restart() stops and starts the service on its directory cleanly, keeping the data and the lock', async () => {
    const t = await buildTestApp();
    try {
      const owner = await signup(t.app);
      const roomId = await createRoom(t.app, owner);
      for (let i = 0; i < 3; i++) {
        await t.restart();
        await assertRefused(t.config.dataDir, process.pid);
        assert.equal(assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token })).roomId, roomId);
      }
    } finally {
      await t.close();
    }
  });
});

/**
 * The sweeps' scheduler (infra/scheduler.ts): each sweep runs once at start, then every
 * period, never twice at the same time; a failure is logged under the sweep's name and does
 * not stop the others; nothing runs after close.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { InProcessScheduler, nextCronTime } from '../../src/infra/scheduler.js';
import { recordingLogger } from '../support/logger.js';

test('a sweep runs at start, again after its period, and no more after close', async () => {
  const { lines, logger } = recordingLogger();
  const scheduler = new InProcessScheduler(logger);
  let runs = 0;
  scheduler.add({ name: 'counting', everyMs: 40, run: async () => void runs++ });
  let failures = 0;
  scheduler.add({
    name: 'failing',
    everyMs: 40,
    run: async () => {
      failures++;
      throw new Error('disk gone');
    },
  });

  await scheduler.start();
  // The first runs are done when start resolves (a failure does not stop it or the others).
  assert.equal(runs, 1);
  assert.equal(failures, 1);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.level, 'error');
  assert.equal(lines[0]!.message, 'sweep failing failed');
  assert.equal((lines[0]!.object as { err: Error }).err.message, 'disk gone');

  // Every 40 ms after that (waited for up to 5 s: the machine may be busy).
  for (let waited = 0; (runs < 3 || failures < 3) && waited < 5000; waited += 20) await sleep(20);
  assert.ok(runs >= 3, `ran ${runs} times`);
  assert.ok(failures >= 3, `failed ${failures} times`);
  assert.equal(lines.length, failures);

  await scheduler.close();
  const stopped = runs;
  await sleep(150);
  assert.equal(runs, stopped);
});

test('a sweep still running is not started again, and close waits for it', async () => {
  const scheduler = new InProcessScheduler(recordingLogger().logger);
  let running = 0;
  let most = 0;
  let runs = 0;
  let finished = 0;
  scheduler.add({
    name: 'slow',
    everyMs: 10,
    run: async () => {
      runs++;
      running++;
      most = Math.max(most, running);
      await sleep(runs === 1 ? 0 : 80);
      running--;
      finished++;
    },
  });
  await scheduler.start();
  await sleep(100);
  await scheduler.close();
  assert.equal(most, 1);
  assert.ok(runs >= 2);
  // close resolved only once the run in progress had ended.
  assert.equal(finished, runs);
  assert.equal(running, 0);
});

test('a sweep name is added once', () => {
  const scheduler = new InProcessScheduler(recordingLogger().logger);
  scheduler.add({ name: 'chunks', everyMs: 1000, run: async () => undefined });
  assert.throws(() => scheduler.add({ name: 'chunks', everyMs: 1000, run: async () => undefined }), /added twice/);
});

test('a cron sweep does not run at start, only at its times (UTC)', async () => {
  assert.equal(
    new Date(nextCronTime('0 3 * * *', new Date('2026-11-30T04:00:00Z'))).toISOString(),
    '2026-12-01T03:00:00.000Z',
  );
  assert.equal(
    new Date(nextCronTime('*/15 * * * *', new Date('2026-11-30T04:07:10Z'))).toISOString(),
    '2026-11-30T04:15:00.000Z',
  );
  assert.throws(() => nextCronTime('every day'));
  const { logger } = recordingLogger();
  const scheduler = new InProcessScheduler(logger);
  const runs: number[] = [];
  scheduler.add({ name: 'each second', cron: '* * * * * *', run: async () => void runs.push(Date.now()) });
  await scheduler.start();
  assert.equal(runs.length, 0, 'nothing ran at start');
  for (let waited = 0; runs.length < 2 && waited < 5000; waited += 20) await sleep(20);
  await scheduler.close();
  assert.ok(runs.length >= 2, `ran ${runs.length} times`);
  assert.ok(runs[1]! - runs[0]! >= 900, 'once per second, at its times');
});

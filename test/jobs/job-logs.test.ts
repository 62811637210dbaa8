import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertOk, call, type Scaffold, scaffold } from '../helpers.js';

/**
 * A job's log lines carry the id of the request that queued it (`reqId`, as the request's own
 * lines do), with its `jobId` and `kind`: one search of the log follows a request into the job.
 */

type LogLine = Record<string, unknown> & { msg?: string; req?: { url?: string } };
const lines: LogLine[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});
let s: Scaffold;

before(async () => {
  s = await scaffold({ config: { logLevel: 'info' }, build: { logStream } });
});
after(async () => {
  await s?.t.close();
});

/** The lines of a job, once it has logged its end. */
async function jobLines(jobId: string): Promise<LogLine[]> {
  const of = () => lines.filter((line) => line.jobId === jobId);
  for (let i = 0; i < 800 && !of().some((line) => line.msg === 'job ended'); i++) await sleep(25);
  return of();
}

test("each job's log lines carry the id of the request that queued it", async () => {
  const url = `/api/rooms/${s.room}/export-jobs`;
  const queue = async (body: object) => {
    const from = lines.length;
    const { jobId } = assertOk(await call(s.t.app, 'POST', url, { auth: s.users.viewer.token, body }), 202);
    const asked = lines.slice(from).find((line) => line.msg === 'incoming request' && line.req?.url === url);
    assert.ok(asked, 'the request is logged');
    return { jobId: jobId as string, reqId: asked.reqId };
  };
  // Two requests, two jobs (other options: not the same waiting export).
  const first = await queue({});
  const second = await queue({ include_tiffs: true });
  assert.notEqual(first.reqId, second.reqId);
  for (const { jobId, reqId } of [first, second]) {
    const logged = await jobLines(jobId);
    assert.deepEqual(
      logged.map((line) => line.msg),
      ['job started', 'job ended'],
    );
    for (const line of logged) {
      assert.equal(line.reqId, reqId, JSON.stringify(line));
      assert.equal(line.kind, 'room-export');
    }
    assert.equal(logged.at(-1)!.outcome, 'complete');
  }
});

test('request ids are apart across instances: a random prefix of the process, then a counter', async () => {
  const ids = lines.filter((line) => line.msg === 'incoming request').map((line) => String(line.reqId));
  assert.equal(new Set(ids).size, ids.length, 'one id per request');
  const prefix = ids[0]!.split('-')[0]!;
  assert.match(ids[0]!, /^[0-9a-f]{8}-[0-9a-z]+$/);
  assert.ok(
    ids.every((id) => id.startsWith(`${prefix}-`)),
    'one prefix in this process',
  );
  const other = await scaffold({ users: ['owner'], rooms: [], config: { logLevel: 'info' }, build: { logStream } });
  try {
    const theirs = lines.filter((line) => line.msg === 'incoming request' && !ids.includes(String(line.reqId)));
    assert.ok(theirs.length > 0);
    assert.ok(
      theirs.every((line) => !String(line.reqId).startsWith(`${prefix}-`)),
      'another prefix in another',
    );
  } finally {
    await other.t.close();
  }
});

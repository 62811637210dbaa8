import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import Fastify from 'fastify';
import { requestLogger } from '../../src/http/logging.js';
import { buildTestApp, call, createRoom, issueToken, signup } from '../helpers.js';

test('logs never carry passwords, session tokens or room token secrets', async () => {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk) => lines.push(chunk.toString()));
  const t = await buildTestApp({ logLevel: 'trace' }, { logStream: stream });
  try {
    const password = 'very-secret-password-123';
    const owner = await signup(t.app, undefined, password);
    await call(t.app, 'POST', '/api/auth/login', { body: { email: owner.email, password } });
    const roomId = await createRoom(t.app, owner);
    const { token } = await issueToken(t.app, owner, roomId, ['read']);
    await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token });
    await call(t.app, 'GET', `/api/rooms/${roomId}?access_token=${token}`);
    await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: 'not-a-valid-jwt' });
    const embedKey = (
      await call(t.app, 'POST', `/api/rooms/${roomId}/embed-keys`, {
        auth: owner.token,
        body: { name: 'l', expiresInDays: 1 },
      })
    ).json().key as string;
    await call(t.app, 'GET', `/e/${roomId}?controls=zoom&key=${embedKey}`);
    await call(t.app, 'GET', `/api/rooms/${roomId}/live?access_token=${embedKey}`);
    // A room token as the password of HTTP Basic: taken by the OGC API, refused elsewhere.
    const basic = Buffer.from(`any:${token}`).toString('base64');
    for (const url of [`/api/rooms/${roomId}/ogc`, `/api/rooms/${roomId}/markers`])
      await call(t.app, 'GET', url, { headers: { authorization: `Basic ${basic}` } });
    const log = lines.join('');
    assert.ok(log.includes(`/api/rooms/${roomId}`), 'requests are logged');
    assert.ok(log.includes('access_token=[REDACTED]'), 'credential query parameters are masked');
    assert.ok(log.includes('key=[REDACTED]'), "an embed page's key is masked");
    for (const secret of [password, owner.token, token, embedKey, basic]) {
      assert.ok(!log.includes(secret), `a secret leaked into the log: ${secret.slice(0, 12)}…`);
    }
  } finally {
    await t.close();
  }
});

test('a request logger made lazily (at warn) still logs its lines with the request id, and only the enabled levels', () => {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk) => lines.push(chunk.toString()));
  const parent = Fastify({ logger: { level: 'warn', stream } }).log;
  const child = requestLogger(parent, { reqId: 'req-7' }, {});
  child.info('not at warn');
  child.error({ code: 42 }, 'request failed');
  child.child({ part: 'inner' }).warn('from a child');
  const logged = lines
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    logged.map(({ reqId, msg, code, part }) => ({ reqId, msg, code, part })),
    [
      { reqId: 'req-7', msg: 'request failed', code: 42, part: undefined },
      { reqId: 'req-7', msg: 'from a child', code: undefined, part: 'inner' },
    ],
  );
  assert.equal(child.level, 'warn');
});

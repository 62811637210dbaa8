import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import sharp from 'sharp';
import WebSocket from 'ws';
import { ConfigError, loadConfig } from '../src/config.js';
import { scrubUrl } from '../src/http/logging.js';
import {
  assertError,
  buildTestApp,
  call,
  createRoom,
  type FormPart,
  issueToken,
  multipart,
  signupAll,
  type TestApp,
  type TestUser,
  uniqueRoomId,
} from './helpers.js';

/** Regression tests for the findings of the security review. */

let t: TestApp;
let users: { owner: TestUser; mallory: TestUser };

before(async () => {
  t = await buildTestApp();
  users = await signupAll(t.app, 'owner', 'mallory');
});
after(() => t.close());

async function postForm(url: string, auth: string, parts: Record<string, FormPart>) {
  const { payload, headers } = await multipart(parts);
  return t.app.inject({ method: 'POST', url, headers: { ...headers, authorization: `Bearer ${auth}` }, payload });
}

test("a marker cannot reference, and so cannot delete, another room's image", async () => {
  const victimRoom = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: true });
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } }).jpeg().toBuffer();
  const upload = await postForm(`/api/rooms/${victimRoom}/markers/upload-image`, users.owner.token, { image: jpeg, thumbnail: jpeg });
  assert.equal(upload.statusCode, 200, upload.body);
  const { imageKey, thumbnailKey } = upload.json();

  const malloryRoom = await createRoom(t.app, users.mallory);
  for (const keys of [
    { imageKey: '', thumbnailKey },
    { imageKey, thumbnailKey: '' },
    { imageKey, thumbnailKey },
  ]) {
    const res = await call(t.app, 'POST', `/api/rooms/${malloryRoom}/markers`, {
      auth: users.mallory.token,
      body: { latitude: 0, longitude: 0, ...keys },
    });
    assertError(res, 400, 'validation_error');
  }
  const image = await call(t.app, 'GET', `/api/rooms/${victimRoom}/markers/image?key=${encodeURIComponent(thumbnailKey)}`);
  assert.equal(image.statusCode, 200, 'the victim room still serves its image');
});

test('an SVG icon nested too deeply is refused with 400, without parsing it', { timeout: 15_000 }, async () => {
  const room = await createRoom(t.app, users.owner);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg">${'<g>'.repeat(5000)}${'</g>'.repeat(5000)}</svg>`;
  const res = await postForm(`/api/rooms/${room}/marker-icons`, users.owner.token, {
    icon: Buffer.from(svg),
    name: 'deep',
    size: '32',
  });
  assert.equal(res.statusCode, 400, res.body);
  assert.match(res.json().message, /too complex/);
});

test('a drawing with a huge coordinate array is a 400, not a 500', async () => {
  const room = await createRoom(t.app, users.owner);
  const coordinates = Array(150_000).fill(0);
  const res = await call(t.app, 'POST', `/api/rooms/${room}/drawings`, {
    auth: users.owner.token,
    body: { geometry: { type: 'Polygon', coordinates } },
  });
  assertError(res, 400, 'validation_error');
});

test('room tokens and JWTs are masked in logged URLs, also under an encoded parameter name', () => {
  const url = '/api/rooms/x/live?access%5Ftoken=mrt_abcdefghijklmnop&t=eyJhbGciOi.eyJzdWIiOi.c2ln';
  const scrubbed = scrubUrl(url);
  assert.ok(!scrubbed.includes('abcdefghijklmnop') && !scrubbed.includes('eyJzdWIiOi'), scrubbed);
});

describe('live sockets lose access when the room does', () => {
  let address: string;
  before(async () => {
    address = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  });

  /** Opens a socket, waits for hello, resolves with the close code and the messages seen. */
  async function watch(path: string) {
    const socket = new WebSocket(`${address}${path}`);
    const messages: any[] = [];
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (raw) => {
        messages.push(JSON.parse(String(raw)));
        if (messages.length === 1) resolve();
      });
      socket.on('error', reject);
    });
    return { socket, messages, closed };
  }

  test('a revoked token is disconnected with 4401', { timeout: 15_000 }, async () => {
    const room = await createRoom(t.app, users.owner);
    const token = await issueToken(t.app, users.owner, room, ['read']);
    const { messages, closed } = await watch(`/api/rooms/${room}/live?access_token=${token.token}`);
    assert.equal(messages[0].type, 'hello');
    assert.equal((await call(t.app, 'DELETE', `/api/rooms/${room}/api-tokens/${token.id}`, { auth: users.owner.token })).statusCode, 200);
    assert.equal(await closed, 4401);
  });

  test('an anonymous listener of a room made private is disconnected, and hears no later change', { timeout: 15_000 }, async () => {
    const room = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: true });
    const { messages, closed } = await watch(`/api/rooms/${room}/live`);
    await call(t.app, 'PATCH', `/api/rooms/${room}/public`, { auth: users.owner.token, body: { isPublic: false } });
    assert.equal(await closed, 4401);
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.owner.token, body: { latitude: 1, longitude: 1 } });
    assert.ok(!messages.some((m) => m.type === 'marker.created'));
  });
});

describe('external identity provider', () => {
  let server: Server;
  let jwks: string;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  before(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwks = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    sign = (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer('https://idp.test')
        .setAudience('maproom-test')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('the audience is required with a JWKS URL', () => {
    assert.throws(() => loadConfig({ AUTH_JWKS_URL: jwks, AUTH_ISSUER: 'https://idp.test' }), ConfigError);
  });

  test("an external subject equal to a local account's id does not become that account", async () => {
    const ext = await buildTestApp({ authJwksUrl: jwks, authIssuer: 'https://idp.test', authAudience: 'maproom-test' });
    try {
      const victim = (await signupAll(ext.app, 'victim')).victim;
      await createRoom(ext.app, victim);
      const forged = await sign({ sub: victim.id, email: 'mallory@evil.test' });
      assertError(await call(ext.app, 'GET', '/api/rooms', { auth: forged }), 401, 'unauthorized');
      const me = await call(ext.app, 'GET', '/api/auth/me', { auth: victim.token });
      assert.equal(me.json().user.email, victim.email, "the victim's e-mail is unchanged");
      const login = await call(ext.app, 'POST', '/api/auth/login', { body: { email: victim.email, password: 'correct horse' } });
      assert.equal(login.statusCode, 200);
    } finally {
      await ext.close();
    }
  });
});

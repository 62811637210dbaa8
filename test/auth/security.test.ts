import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ConfigError, loadConfig } from '../../src/config.js';
import { scrubUrl } from '../../src/http/logging.js';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  type FormPart,
  issueToken,
  PASSWORD,
  postMultipart,
  scaffold,
  type TestApp,
  type TestUser,
  uniqueRoomId,
} from '../helpers.js';
import { type Idp, IDP_ISSUER, startIdp, trusting } from '../support/idp.js';
import { LiveClient } from '../support/live-client.js';

/** Regression tests for the findings of the security review. */

let t: TestApp;
let wsBase: string;
/** The rooms' owner, and `mallory`, the attacker: signed in, but a stranger to the owner's rooms. */
let users: { owner: TestUser; mallory: TestUser };

before(async () => {
  const made = await scaffold({ users: ['owner', 'stranger'], rooms: [], listen: true });
  ({ t, wsBase } = made);
  users = { owner: made.users.owner, mallory: made.users.stranger };
});
after(() => t.close());

const postForm = (url: string, auth: string, parts: Record<string, FormPart>) => postMultipart(t.app, url, parts, auth);

test("a marker cannot reference, and so cannot delete, another room's image", async () => {
  const victimRoom = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: true });
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer();
  const upload = await postForm(`/api/rooms/${victimRoom}/markers/upload-image`, users.owner.token, {
    image: jpeg,
    thumbnail: jpeg,
  });
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
  const image = await call(
    t.app,
    'GET',
    `/api/rooms/${victimRoom}/markers/image?key=${encodeURIComponent(thumbnailKey)}`,
  );
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
  const sockets: LiveClient[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.terminate();
  });

  /** Opens a socket and waits for its hello. */
  async function watch(path: string) {
    const socket = new LiveClient(`${wsBase}${path}`);
    sockets.push(socket);
    await socket.at(0);
    return socket;
  }

  test('a revoked token is disconnected with 4401', { timeout: 15_000 }, async () => {
    const room = await createRoom(t.app, users.owner);
    const token = await issueToken(t.app, users.owner, room, ['read']);
    const socket = await watch(`/api/rooms/${room}/live?access_token=${token.token}`);
    assert.equal(socket.messages[0]!.type, 'hello');
    assert.equal(
      (await call(t.app, 'DELETE', `/api/rooms/${room}/api-tokens/${token.id}`, { auth: users.owner.token }))
        .statusCode,
      200,
    );
    assert.equal((await socket.closedWithin()).code, 4401);
  });

  test('an anonymous listener of a room made private is disconnected, and hears no later change', {
    timeout: 15_000,
  }, async () => {
    const room = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: true });
    const anonymous = await watch(`/api/rooms/${room}/live`);
    // The owner keeps reading: the owner's socket shows when a change has reached the room's listeners.
    const owner = await watch(`/api/rooms/${room}/live?access_token=${users.owner.token}`);
    await call(t.app, 'PATCH', `/api/rooms/${room}/public`, { auth: users.owner.token, body: { isPublic: false } });
    // A change at once, without waiting for the disconnection.
    const res = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: users.owner.token,
      body: { latitude: 1, longitude: 1 },
    });
    const marker = assertOk(res, 201).marker;
    await owner.waitUntil(
      (m) => m.type === 'marker.created' && m.objectId === marker.id,
      "the new marker on the owner's socket",
    );
    // Everything the server sent the anonymous socket arrives before its close.
    assert.equal((await anonymous.closedWithin()).code, 4401);
    assert.ok(!anonymous.messages.some((m) => m.type === 'marker.created'), JSON.stringify(anonymous.messages));
  });
});

describe('external identity provider', () => {
  let idp: Idp;
  before(async () => {
    idp = await startIdp();
  });
  after(() => idp.close());

  test('the audience is required with a JWKS URL', () => {
    assert.throws(() => loadConfig({ AUTH_JWKS_URL: idp.url, AUTH_ISSUER: IDP_ISSUER }), ConfigError);
  });

  test("an external subject equal to a local account's id does not become that account", async () => {
    const {
      t: ext,
      users: { owner: victim },
    } = await scaffold({ config: trusting(idp), users: ['owner'], rooms: [] });
    try {
      await createRoom(ext.app, victim);
      const forged = await idp.sign({ sub: victim.id, email: 'mallory@evil.test' });
      assertError(await call(ext.app, 'GET', '/api/rooms', { auth: forged }), 401, 'unauthorized');
      const me = await call(ext.app, 'GET', '/api/auth/me', { auth: victim.token });
      assert.equal(me.json().user.email, victim.email, "the victim's e-mail is unchanged");
      const login = await call(ext.app, 'POST', '/api/auth/login', {
        body: { email: victim.email, password: PASSWORD },
      });
      assert.equal(login.statusCode, 200);
    } finally {
      await ext.close();
    }
  });
});

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import {
  addMember,
  assertOk,
  basicAuthorization,
  call,
  createRoom,
  type FormPart,
  issueToken,
  multipart,
  postMultipart,
  type Response,
  scaffold,
  type TestApp,
  type TestUser,
  uniqueRoomId,
  type Users,
} from '../helpers.js';
import { PERMISSION_SUBSETS, type MatrixCaller, ROOM_KINDS, type RoomKind, tokenName } from './access-matrix-rules.js';
import { TWO_SQUARES } from './layers.js';

/**
 * The world the access matrix runs in, made once: users of every role, a private room, a
 * public room and a private room with a public deck (each with a viewer and an editor, a
 * token of every permission subset, a revoked and an expired token, and one object of every
 * kind), and a token of another room.
 */

/** The text every stored fixture carries: a write-only answer must never contain it. */
export const STORED_SECRET = 'stored-secret-7f3a';

/** One object of every kind in a room, made by the owner; probes address them. */
export interface Fixtures {
  markerId: string;
  drawingId: string;
  slideId: string;
  commentId: string;
  replyId: string;
  iconId: string;
  imageKey: string;
  jobId: string;
  layerId: string;
}

export interface MatrixRoom {
  kind: RoomKind;
  roomId: string;
  fixtures: Fixtures;
  /** Secrets of this room's tokens, by caller name (every subset, revoked, expired). */
  tokens: Map<string, string>;
}

export interface MatrixWorld {
  t: TestApp;
  users: Users;
  rooms: Record<RoomKind, MatrixRoom>;
  /** A token with every permission, of a room of the same owner. */
  foreignToken: string;
  foreignRoomId: string;
}

export const POINT = { type: 'Point', coordinates: [7.45, 46.95] };
export const VIEW = { lat: 46.95, lng: 7.45, zoom: 12 };
export const ONE_POINT_COLLECTION = JSON.stringify({
  type: 'FeatureCollection',
  features: [{ type: 'Feature', geometry: POINT, properties: { title: STORED_SECRET } }],
});

const grey = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } });
let jpegBytes: Buffer | undefined;
let pngBytes: Buffer | undefined;
/** A small JPEG made by sharp, for marker images. */
export async function jpeg(): Promise<Buffer> {
  jpegBytes ??= await grey().jpeg().toBuffer();
  return jpegBytes;
}

/** A marker icon form: a small PNG made by sharp (an SVG would load the sanitiser, seconds on first use). */
export async function iconForm(name: string): Promise<Record<string, FormPart>> {
  pngBytes ??= await grey().png().toBuffer();
  return { icon: { data: pngBytes, filename: 'dot.png', type: 'image/png' }, name, size: '16' };
}

/** A call that must succeed; returns its JSON answer. */
export async function succeed(res: Response, what: string) {
  assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${what}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** What a caller sends: a session or token as Bearer, or a room token as the password of HTTP Basic. */
export type Credential = string | { basicPassword: string } | undefined;

/** Sends a request as the caller with `auth` (JSON body, or a multipart form). */
export async function send(
  t: TestApp,
  probe: { method: string; url: string; body?: unknown; form?: Record<string, FormPart> },
  auth?: Credential,
): Promise<Response> {
  if (typeof auth === 'object') {
    const authorization = basicAuthorization('matrix', auth.basicPassword);
    if (!probe.form)
      return call(t.app, probe.method as 'GET', probe.url, { headers: { authorization }, body: probe.body });
    const { payload, headers } = await multipart(probe.form);
    return (await t.app.inject({
      method: 'POST',
      url: probe.url,
      headers: { ...headers, authorization },
      payload,
    })) as Response;
  }
  if (probe.form) {
    assert.equal(probe.method, 'POST', 'multipart probes are POSTs');
    return postMultipart(t.app, probe.url, probe.form, auth);
  }
  return call(t.app, probe.method as 'GET', probe.url, { auth, body: probe.body });
}

/** Polls a job until it is complete (fails on `error`). */
export async function waitForJob(t: TestApp, jobId: string, auth: string) {
  for (let attempt = 0; attempt < 2000; attempt++) {
    const job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth }));
    if (job.stage === 'error') assert.fail(`job ${jobId} failed: ${job.message}`);
    if (job.stage === 'complete') return job;
    await sleep(10);
  }
  assert.fail(`job ${jobId} did not finish`);
}

/** One object of every kind in `roomId`, made with the owner's session; each holds STORED_SECRET. */
async function makeFixtures(t: TestApp, owner: TestUser, roomId: string): Promise<Fixtures> {
  const base = `/api/rooms/${roomId}`;
  const post = async (url: string, body: unknown) =>
    succeed(await call(t.app, 'POST', url, { auth: owner.token, body }), `POST ${url}`);
  const postForm = async (url: string, form: Record<string, FormPart>) =>
    succeed(await postMultipart(t.app, url, form, owner.token), `POST ${url}`);

  const image = await postForm(`${base}/markers/upload-image`, { image: await jpeg(), thumbnail: await jpeg() });
  const icon = await postForm(`${base}/marker-icons`, await iconForm(STORED_SECRET));
  const { imageKey, thumbnailKey } = image;
  const marker = await post(`${base}/markers`, {
    latitude: 46.9,
    longitude: 7.4,
    title: 'Fixture',
    description: STORED_SECRET,
    imageKey,
    thumbnailKey,
    markerIconId: icon.iconId,
  });
  const drawing = await post(`${base}/drawings`, {
    geometry: POINT,
    label: STORED_SECRET,
    style: { color: '#00ff00' },
  });
  const layer = await post(`${base}/layers`, { name: 'Fixture', description: STORED_SECRET, geojson: TWO_SQUARES });
  const slide = await post(`${base}/presentation/slides`, {
    title: 'Fixture',
    body: STORED_SECRET,
    view: VIEW,
    markerIds: [marker.marker.id],
    layerIds: [layer.layer.id],
  });
  const comment = await post(`${base}/comments`, {
    objectId: marker.marker.id,
    objectType: 'marker',
    body: STORED_SECRET,
  });
  const reply = await post(`${base}/comments/${comment.comment.id}/replies`, { body: STORED_SECRET });
  const job = await postForm(`${base}/bulk-import`, {
    file: { data: ONE_POINT_COLLECTION, filename: 'points.geojson' },
  });
  await waitForJob(t, job.jobId, owner.token);
  return {
    markerId: marker.marker.id,
    drawingId: drawing.drawing.id,
    slideId: slide.slide.id,
    commentId: comment.comment.id,
    replyId: reply.reply.id,
    iconId: icon.iconId,
    imageKey: image.imageKey,
    jobId: job.jobId,
    layerId: layer.layer.id,
  };
}

/** A room of `kind` owned by `users.owner`, with `users.viewer` and `users.editor` as members. */
export async function roomOfKind(t: TestApp, users: Users, kind: RoomKind) {
  const roomId = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: kind === 'public' });
  await addMember(t.app, users.owner, roomId, users.viewer, 'viewer');
  await addMember(t.app, users.owner, roomId, users.editor, 'editor');
  if (kind === 'publicDeck') {
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: users.owner.token,
        body: { isPublic: true },
      }),
    );
  }
  return roomId;
}

async function matrixRoom(t: TestApp, users: Users, kind: RoomKind): Promise<MatrixRoom & { expiredTokenId: string }> {
  const roomId = await roomOfKind(t, users, kind);
  const tokens = new Map<string, string>();
  for (const permissions of PERMISSION_SUBSETS)
    tokens.set(tokenName(permissions), (await issueToken(t.app, users.owner, roomId, [...permissions])).token);
  const revoked = await issueToken(t.app, users.owner, roomId, ['read', 'write', 'upload']);
  assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}/api-tokens/${revoked.id}`, { auth: users.owner.token }));
  tokens.set('revoked token', revoked.token);
  const expired = await issueToken(t.app, users.owner, roomId, ['read', 'write', 'upload']);
  tokens.set('expired token', expired.token);
  const embed = await call(t.app, 'POST', `/api/rooms/${roomId}/embed-keys`, {
    auth: users.owner.token,
    body: { name: 'Embed', expiresInDays: 30 },
  });
  tokens.set('embed key', assertOk(embed, 201).key);
  const fixtures = await makeFixtures(t, users.owner, roomId);
  return { kind, roomId, fixtures, tokens, expiredTokenId: expired.id };
}

/** Makes the world; the caller closes `world.t`. */
export async function buildMatrixWorld(): Promise<MatrixWorld> {
  const { t, users } = await scaffold({ rooms: [] });
  try {
    const made = await Promise.all(ROOM_KINDS.map((kind) => matrixRoom(t, users, kind)));
    const foreignRoomId = await createRoom(t.app, users.owner);
    const foreign = await issueToken(t.app, users.owner, foreignRoomId, ['read', 'write', 'upload']);
    // Expiry is arranged in the database; the access cache forgets it only on a restart.
    const expiredIds = made.map((room) => room.expiredTokenId);
    await t.database.db
      .updateTable('api_tokens')
      .set({ expires_at: Date.now() - 1000 })
      .where('id', 'in', expiredIds)
      .execute();
    await t.restart();
    const rooms = Object.fromEntries(made.map(({ expiredTokenId: _, ...room }) => [room.kind, room])) as Record<
      RoomKind,
      MatrixRoom
    >;
    return { t, users, rooms, foreignToken: foreign.token, foreignRoomId };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** The credential `caller` sends on `room` (undefined for anonymous). */
export function credentialOf(world: MatrixWorld, caller: MatrixCaller, room: MatrixRoom): Credential {
  switch (caller.kind) {
    case 'anonymous':
      return undefined;
    case 'user':
      return world.users[caller.role].token;
    case 'foreignToken':
      return world.foreignToken;
    case 'token':
    case 'deadToken':
    case 'embedKey':
      return room.tokens.get(caller.name) ?? assert.fail(`no token for ${caller.name}`);
    case 'basicToken': {
      const name = tokenName(caller.permissions);
      return { basicPassword: room.tokens.get(name) ?? assert.fail(`no token for ${name}`) };
    }
  }
}

/**
 * A fresh room of `kind` with the same members, and a token for `caller` when it is a token:
 * where an allowed caller's probe destroys (clear, delete). Those probes address no object,
 * so the fixtures named are the matrix room's.
 */
export async function freshRoomFor(world: MatrixWorld, kind: RoomKind, caller: MatrixCaller): Promise<MatrixRoom> {
  const { t, users } = world;
  const roomId = await roomOfKind(t, users, kind);
  const tokens = new Map<string, string>();
  if (caller.kind === 'token' || caller.kind === 'basicToken')
    tokens.set(
      tokenName(caller.permissions),
      (await issueToken(t.app, users.owner, roomId, [...caller.permissions])).token,
    );
  return { kind, roomId, tokens, fixtures: world.rooms[kind].fixtures };
}

/**
 * Everything a refused request could have changed in the rooms: the room rows (settings and
 * `version`), their history, members, invitations, tokens, stored files and jobs.
 */
export async function roomsState(t: TestApp, roomIds: string[]): Promise<Record<string, unknown>> {
  const db = t.database.db;
  const [rooms, history, members, invitations, tokens, files, jobs, staged] = await Promise.all([
    db.selectFrom('rooms').selectAll().where('id', 'in', roomIds).orderBy('id').execute(),
    db
      .selectFrom('history')
      .select(['room_id', 'id', 'version'])
      .where('room_id', 'in', roomIds)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('room_members')
      .select(['room_id', 'user_id', 'role'])
      .where('room_id', 'in', roomIds)
      .orderBy('room_id')
      .orderBy('user_id')
      .execute(),
    db
      .selectFrom('pending_invitations')
      .select(['room_id', 'email', 'role'])
      .where('room_id', 'in', roomIds)
      .orderBy('room_id')
      .orderBy('email')
      .execute(),
    // Not `last_used_at`: using a token is not a change to the room.
    db
      .selectFrom('api_tokens')
      .select(['room_id', 'id', 'permissions', 'expires_at'])
      .where('room_id', 'in', roomIds)
      .orderBy('id')
      .execute(),
    db.selectFrom('stored_files').select(['room_id', 'key']).where('room_id', 'in', roomIds).orderBy('key').execute(),
    db.selectFrom('jobs').select(['room_id', 'id', 'stage']).where('room_id', 'in', roomIds).orderBy('id').execute(),
    db
      .selectFrom('staged_jobs')
      .select(['room_id', 'job_id'])
      .where('room_id', 'in', roomIds)
      .orderBy('job_id')
      .execute(),
  ]);
  return { rooms, history, members, invitations, tokens, files, jobs, staged };
}

/** The parts of two `roomsState`s that differ, by name (empty when nothing changed). */
export function changedParts(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(before).filter((part) => JSON.stringify(before[part]) !== JSON.stringify(after[part]));
}

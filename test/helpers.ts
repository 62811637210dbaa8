import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type App, buildApp, type BuildOptions } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { loadConfig, type Config } from '../src/config.js';
import { Mailbox, verificationToken } from './support/mailbox.js';

/** Which database the suite runs on: `MAPROOM_TEST_DB=sqlite|postgres` (default sqlite). */
export const TEST_DB = process.env.MAPROOM_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
/** The PostgreSQL server the tests create their databases on. */
export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  /** The app's database, for arranging states no route can reach (an expired token). */
  database: Database;
  /** The account services (disabling an account: an admin's action). */
  accounts: App['accounts'];
  /** The room export's tables, in the file's order (the exchange tests compare them with the database). */
  exchanges: App['exchanges'];
  /** Stops the app, drops its PostgreSQL database and removes its data directory. */
  close(): Promise<void>;
  /**
   * Stops the app and starts a new one on the same database and data directory, as a
   * restart of the service would; `app` and `database` then name the new one.
   */
  restart(): Promise<void>;
}

/** Runs one statement on the PostgreSQL server as its administrator (to create and drop test databases). */
export async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh app with its own data directory and, on PostgreSQL, its own database; given a
 * `databaseUrl`, a second instance on that database (whose `close` leaves it to the first).
 */
export async function buildTestApp(overrides: Partial<Config> = {}, options: BuildOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-test-'));
  let databaseUrl: string | undefined;
  let dbName: string | undefined;
  if (TEST_DB === 'postgres' && !overrides.databaseUrl) {
    dbName = `maproom_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const config = loadConfig(
    {},
    {
      dataDir,
      databaseUrl,
      ...(databaseUrl && { jwtSecret: randomBytes(32).toString('base64url') }),
      logLevel: (process.env.TEST_LOG_LEVEL as Config['logLevel'] | undefined) ?? 'silent',
      authRateLimitPerMinute: 100_000,
      // Sign-ups are most of a test's set-up; the production cost (17) is tested on its own.
      passwordHashCost: 12,
      ...overrides,
    },
  );
  const mailbox = new Mailbox();
  const { app, database, accounts, exchanges } = await buildApp(config, { mailer: mailbox, ...options });
  mailboxes.set(app, mailbox);
  const testApp: TestApp = {
    app,
    config,
    database,
    accounts,
    exchanges,
    async restart() {
      await testApp.app.close();
      const next = await buildApp(config, { mailer: mailbox, ...options });
      mailboxes.set(next.app, mailbox);
      testApp.app = next.app;
      testApp.database = next.database;
      testApp.accounts = next.accounts;
      testApp.exchanges = next.exchanges;
    },
    async close() {
      await testApp.app.close();
      if (dbName) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}

export type Response = LightMyRequestResponse & { body: string; json<T = any>(): T };

/** `app.inject` with an optional bearer credential and a JSON body. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  options: { auth?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.authorization = `Bearer ${options.auth}`;
  return (await app.inject({
    method,
    url,
    headers,
    ...(options.body !== undefined && { payload: options.body as InjectOptions['payload'] }),
  })) as Response;
}

const mailboxes = new WeakMap<FastifyInstance, Mailbox>();

let counter = 0;
/** A unique e-mail address for a test user. */
export const uniqueEmail = (name = 'user') => `${name}-${Date.now().toString(36)}-${counter++}@example.com`;

/** A unique valid room id (10 characters). */
export const uniqueRoomId = () => randomBytes(8).toString('base64url').slice(0, 10);

export interface TestUser {
  token: string;
  id: string;
  email: string;
}

/** The password `signup` gives every test user. */
export const PASSWORD = 'correct horse';

/**
 * The messages a refused room API token gets, word for word as the service sends them: one
 * copy for every file that asserts them.
 */
export const TOKEN_ERRORS = {
  lacksRead: "API token lacks 'read' permission",
  lacksWrite: "API token lacks 'write' permission",
  lacksUpload: "API token lacks 'upload' permission",
  wrongRoom: 'API token is not scoped to this room',
  invalid: 'Invalid or expired API token',
  basicNotHere:
    'HTTP Basic is accepted only on the OGC API and tile routes; send the credential as "Authorization: Bearer <token>"',
} as const;

/** `Basic <base64(name:password)>`, as curl, QGIS and GDAL send HTTP Basic. */
export const basicAuthorization = (name: string, password: string) =>
  `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

/**
 * Signs up through HTTP and, unless told not to, confirms the address the way a person does:
 * the link e-mailed to it is followed (its token posted to /api/auth/verify-email).
 */
export async function signup(
  app: FastifyInstance,
  email = uniqueEmail(),
  password = PASSWORD,
  { verify = true }: { verify?: boolean } = {},
): Promise<TestUser> {
  const res = await call(app, 'POST', '/api/auth/signup', { body: { email, password } });
  if (res.statusCode !== 201) throw new Error(`signup failed: ${res.statusCode} ${res.body}`);
  const { token, user } = res.json();
  if (verify) await followVerificationLink(app, user.email);
  return { token, id: user.id, email: user.email };
}

/** The mails an app built by buildTestApp has sent (when no other mailer was given). */
export function mailboxOf(app: FastifyInstance): Mailbox {
  const mailbox = mailboxes.get(app);
  if (!mailbox) throw new Error('this app has no test mailbox');
  return mailbox;
}

/** Follows the newest confirmation link e-mailed to `email`; returns the answer. */
export async function followVerificationLink(app: FastifyInstance, email: string) {
  const token = verificationToken(await mailboxOf(app).waitFor(email, /Confirm your e-mail address/));
  const res = await call(app, 'POST', '/api/auth/verify-email', { body: { token } });
  if (res.statusCode !== 200) throw new Error(`verification failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Creates a room owned by `owner` and returns its id. */
export async function createRoom(app: FastifyInstance, owner: TestUser, roomId = uniqueRoomId(), body: object = {}) {
  const res = await call(app, 'POST', `/api/rooms/${roomId}`, { auth: owner.token, body });
  if (res.statusCode !== 200) throw new Error(`room creation failed: ${res.statusCode} ${res.body}`);
  return roomId;
}

/** Issues a room API token with the given permissions and returns its secret and id. */
export async function issueToken(
  app: FastifyInstance,
  owner: TestUser,
  roomId: string,
  permissions: string[],
  expiresInDays = 30,
) {
  const res = await call(app, 'POST', `/api/rooms/${roomId}/api-tokens`, {
    auth: owner.token,
    body: { name: `token ${permissions.join('+')}`, permissions, expiresInDays },
  });
  if (res.statusCode !== 200) throw new Error(`token creation failed: ${res.statusCode} ${res.body}`);
  return res.json<{ token: string; id: string }>();
}

/** Adds an existing user to a room with a role, through the invite route. */
export async function addMember(
  app: FastifyInstance,
  owner: TestUser,
  roomId: string,
  member: TestUser,
  role: 'editor' | 'viewer',
) {
  const res = await call(app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: owner.token,
    body: { email: member.email, role },
  });
  if (res.statusCode !== 200) throw new Error(`invite failed: ${res.statusCode} ${res.body}`);
}

/** Asserts the documented error body `{error, message, details?}` with an exact status and code. */
export function assertError(res: Response, status: number, code: string, message?: string) {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body}`);
  const body = res.json();
  assert.equal(body.error, code, res.body);
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
  if (message !== undefined) assert.equal(body.message, message);
  for (const key of Object.keys(body))
    assert.ok(['error', 'message', 'details'].includes(key), `unexpected key ${key}`);
  return body;
}

/** 400 validation_error whose message or details name the field. */
export function assertValidation(res: Response, field: string) {
  const body = assertError(res, 400, 'validation_error');
  assert.ok(
    body.message.includes(field) || JSON.stringify(body.details ?? null).includes(field),
    `validation error should name ${field}: ${res.body}`,
  );
}

/** The status is as expected; returns the JSON body. */
export function assertOk(res: Response, status = 200) {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** Signs up one user per name, in parallel. */
export async function signupAll<const N extends string>(app: FastifyInstance, ...names: N[]) {
  const users = await Promise.all(names.map((name) => signup(app, uniqueEmail(name))));
  return Object.fromEntries(names.map((name, i) => [name, users[i]])) as Record<N, TestUser>;
}

/** A private room owned by `owner` with `editor` and `viewer` as members. */
export async function createRoomWithMembers(
  app: FastifyInstance,
  users: { owner: TestUser; editor: TestUser; viewer: TestUser },
  body: object = {},
) {
  const roomId = await createRoom(app, users.owner, uniqueRoomId(), body);
  await addMember(app, users.owner, roomId, users.editor, 'editor');
  await addMember(app, users.owner, roomId, users.viewer, 'viewer');
  return roomId;
}

/** One part of a multipart body: a text field, file bytes, or a file with a name and type. */
export type FormPart = string | Buffer | { data: Buffer | string; filename: string; type?: string };

/** A multipart/form-data body built by the platform's own FormData, as a browser sends it. */
export async function multipart(parts: Record<string, FormPart>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value);
    else if (Buffer.isBuffer(value)) form.append(name, new Blob([new Uint8Array(value)]), `${name}.bin`);
    else {
      const bytes = typeof value.data === 'string' ? value.data : new Uint8Array(value.data);
      form.append(name, new Blob([bytes], { type: value.type ?? 'application/octet-stream' }), value.filename);
    }
  }
  const encoded = new Response(form);
  return {
    payload: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  };
}

/** A history entry as `GET /history` answers it. */
export interface HistoryEvent {
  id: string;
  version: number;
  type: string;
  objectType: string;
  objectId: string;
  actor: { kind: string; id: string; name?: string };
  objectName?: string | null;
  at: number;
  changes?: Record<string, unknown>;
}

/** The room's history, newest first. */
export async function roomHistory(
  app: FastifyInstance,
  roomId: string,
  auth: string,
  query = 'limit=500',
): Promise<HistoryEvent[]> {
  return assertOk(await call(app, 'GET', `/api/rooms/${roomId}/history?${query}`, { auth })).events;
}

/** The room's `counts`. */
export async function roomCounts(app: FastifyInstance, roomId: string, auth: string): Promise<Record<string, number>> {
  return assertOk(await call(app, 'GET', `/api/rooms/${roomId}`, { auth })).counts;
}

/** 400 validation_error whose details (or message) name one of `fields`, e.g. `body.lat`; returns the body. */
export function assertFieldError(res: Response, ...fields: string[]) {
  const body = assertError(res, 400, 'validation_error');
  const named: string[] = Array.isArray(body.details) ? body.details.map((d: { field: string }) => d.field) : [];
  assert.ok(
    fields.some((f) => named.includes(f) || body.message.includes(f)),
    `validation error should name ${fields.join(' or ')}: ${res.body}`,
  );
  return body;
}

/** Runs an assertion and prefixes its failure with the case's name. */
export function labelled(name: string, check: () => void) {
  try {
    check();
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}

/** The people a scaffold signs up, named by the part they play in its rooms. */
export type Role = 'owner' | 'editor' | 'viewer' | 'stranger';
const ROLES: readonly Role[] = ['owner', 'editor', 'viewer', 'stranger'];

/** Every role's user, as most files keep them. */
export type Users = Record<Role, TestUser>;

/**
 * The rooms a scaffold can make: `room` is private to `owner` with `editor` and `viewer` as
 * members; `otherRoom` is the owner's with no members; `publicRoom` is the owner's and public.
 */
export type ScaffoldRoom = 'room' | 'otherRoom' | 'publicRoom';

export interface ScaffoldOptions<U extends Role, R extends ScaffoldRoom, L extends boolean> {
  /** Settings for `buildTestApp` (a quota, a log level, an identity provider). */
  config?: Partial<Config>;
  /** Build options for `buildTestApp` (a live hub, a log stream). */
  build?: BuildOptions;
  /** Whom to sign up; all four roles unless named. */
  users?: readonly U[];
  /** Which rooms to make; only `room` unless named. */
  rooms?: readonly R[];
  /** The body `room` is created with (a name, initial settings). */
  roomBody?: object;
  /** Listen on a loopback port, for WebSocket clients: the answer then has `wsBase` (ws://127.0.0.1:port). */
  listen?: L;
}

/** What `scaffold` made: the app, the users by role, the rooms asked for, and `wsBase` when listening. */
export type Scaffold<U extends Role = Role, R extends ScaffoldRoom = 'room', L extends boolean = false> = {
  t: TestApp;
  users: Record<U, TestUser>;
} & Record<R, string> &
  (L extends true ? { wsBase: string } : unknown);

/**
 * The set-up most test files start from, in one call from their `before`: a fresh app, its
 * users signed up by role and the rooms they use, e.g.
 * `({ t, users, room, otherRoom } = await scaffold({ rooms: ['room', 'otherRoom'] }))`.
 * The file closes `t` in its `after`; a failed set-up closes it here.
 */
export async function scaffold<
  const U extends Role = Role,
  const R extends ScaffoldRoom = 'room',
  L extends boolean = false,
>(options: ScaffoldOptions<U, R, L> = {}): Promise<Scaffold<U, R, L>> {
  const t = await buildTestApp(options.config, options.build);
  try {
    const wsBase = options.listen
      ? (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws')
      : undefined;
    const users = await signupAll(t.app, ...((options.users ?? ROLES) as U[]));
    const wanted: readonly ScaffoldRoom[] = options.rooms ?? ['room'];
    const owner = (users as Partial<Users>).owner;
    const rooms: Partial<Record<ScaffoldRoom, string>> = {};
    if (wanted.length > 0 && !owner) throw new Error('scaffold: rooms need an owner among the users');
    if (wanted.includes('room')) {
      const { editor, viewer } = users as Partial<Users>;
      if (!editor || !viewer) throw new Error('scaffold: `room` needs an editor and a viewer among the users');
      rooms.room = await createRoomWithMembers(t.app, { owner: owner!, editor, viewer }, options.roomBody);
    }
    if (wanted.includes('otherRoom')) rooms.otherRoom = await createRoom(t.app, owner!);
    if (wanted.includes('publicRoom'))
      rooms.publicRoom = await createRoom(t.app, owner!, uniqueRoomId(), { isPublic: true });
    return { t, users, ...rooms, ...(wsBase && { wsBase }) } as Scaffold<U, R, L>;
  } catch (error) {
    await t.close();
    throw error;
  }
}

/**
 * `scaffold` for a whole suite (a file, or one `describe`): made in a `before` and closed in an
 * `after` registered here. The answer is filled in once that `before` has run, so the suite keeps
 * it in a constant and reads it in its tests and later hooks, e.g.
 * `const s = scaffoldSuite({ rooms: ['room', 'otherRoom'] });` then `s.t.app`, `s.users.owner`, `s.room`.
 * `arrange`, the rest of the suite's set-up, runs in the same `before` once the scaffold is made: a
 * file's own top-level `before` would not wait for it (Node starts those as they are registered).
 */
export function scaffoldSuite<
  const U extends Role = Role,
  const R extends ScaffoldRoom = 'room',
  L extends boolean = false,
>(options: ScaffoldOptions<U, R, L> = {}, arrange?: () => Promise<void>): Scaffold<U, R, L> {
  const made = {} as Scaffold<U, R, L>;
  before(async () => {
    Object.assign(made, await scaffold(options));
    await arrange?.();
  });
  after(() => made.t?.close());
  return made;
}

/** POSTs a multipart body (see `multipart`) to `url`, with a bearer credential when `auth` is given. */
export async function postMultipart(
  app: FastifyInstance,
  url: string,
  parts: Record<string, FormPart>,
  auth?: string,
): Promise<Response> {
  const { payload, headers } = await multipart(parts);
  return (await app.inject({
    method: 'POST',
    url,
    headers: { ...headers, ...(auth && { authorization: `Bearer ${auth}` }) },
    payload,
  })) as Response;
}

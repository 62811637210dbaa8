import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp, type BuildOptions } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { loadConfig, type Config } from '../src/config.js';

/** Which database the suite runs on: `MAPROOM_TEST_DB=sqlite|postgres` (default sqlite). */
export const TEST_DB = process.env.MAPROOM_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  /** The app's database, for arranging states no route can reach (an expired token). */
  database: Database;
  /** Stops the app, drops its PostgreSQL database and removes its data directory. */
  close(): Promise<void>;
  /**
   * Stops the app and starts a new one on the same database and data directory, as a
   * restart of the service would; `app` and `database` then name the new one.
   */
  restart(): Promise<void>;
}

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh app with its own data directory and, on PostgreSQL, its own database. */
export async function buildTestApp(
  overrides: Partial<Config> = {},
  options: BuildOptions = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-test-'));
  let databaseUrl: string | undefined;
  let dbName: string | undefined;
  if (TEST_DB === 'postgres') {
    dbName = `maproom_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const config = loadConfig({}, {
    dataDir,
    databaseUrl,
    logLevel: 'silent',
    authRateLimitPerMinute: 100_000,
    ...overrides,
  });
  const { app, database } = await buildApp(config, options);
  const testApp: TestApp = {
    app,
    config,
    database,
    async restart() {
      await testApp.app.close();
      const next = await buildApp(config, options);
      testApp.app = next.app;
      testApp.database = next.database;
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

export async function signup(app: FastifyInstance, email = uniqueEmail(), password = 'correct horse'): Promise<TestUser> {
  const res = await call(app, 'POST', '/api/auth/signup', { body: { email, password } });
  if (res.statusCode !== 201) throw new Error(`signup failed: ${res.statusCode} ${res.body}`);
  const { token, user } = res.json();
  return { token, id: user.id, email: user.email };
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
export async function addMember(app: FastifyInstance, owner: TestUser, roomId: string, member: TestUser, role: 'editor' | 'viewer') {
  const res = await call(app, 'POST', `/api/rooms/${roomId}/invite`, { auth: owner.token, body: { email: member.email, role } });
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
  for (const key of Object.keys(body)) assert.ok(['error', 'message', 'details'].includes(key), `unexpected key ${key}`);
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
  return { payload: Buffer.from(await encoded.arrayBuffer()), headers: { 'content-type': encoded.headers.get('content-type')! } };
}

/** A history entry as `GET /history` answers it. */
export interface HistoryEvent {
  id: string;
  version: number;
  type: string;
  objectType: string;
  objectId: string;
  actor: { kind: string; id: string };
  at: number;
  changes?: Record<string, unknown>;
}

/** The room's history, newest first. */
export async function roomHistory(app: FastifyInstance, roomId: string, auth: string, query = 'limit=500'): Promise<HistoryEvent[]> {
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

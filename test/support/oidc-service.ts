import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { TEST_DB } from '../helpers.js';
import type { Answer, BrowserClient } from './browser-client.js';
import { freshDatabase, type Instance, request, startInstance } from './instances.js';
import { CLIENT_ID, CLIENT_SECRET, freePort, type TestCa, type TestProvider } from './oidc-provider.js';

/**
 * The service as a child process for the sign-in tests (Node's fetch reads NODE_EXTRA_CA_CERTS
 * only at start), on SQLite or, with MAPROOM_TEST_DB=postgres, a fresh PostgreSQL database,
 * with its database open to the test for what no route does (disabling an account).
 */

export interface OidcService {
  url: string;
  instance: Instance;
  /** The settings it was started with (a second instance on the same database takes them). */
  env: Record<string, string>;
  /** One statement on the service's database, `?` for parameters. */
  sql<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** The provider entry of OIDC_PROVIDERS for `provider` under `id`. */
export const providerEntry = (id: string, provider: Pick<TestProvider, 'issuer'>, more: object = {}) => ({
  id,
  name: `Sign in with ${id}`,
  issuer: provider.issuer,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  ...more,
});

/** A port and its callback addresses, known before the service starts (PUBLIC_URL). */
export async function servicePort(providerIds: string[]) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return { port, url, callbacks: providerIds.map((id) => `${url}/api/auth/oidc/${id}/callback`) };
}

export async function startOidcService(
  ca: TestCa,
  at: { port: number; url: string },
  env: Record<string, string>,
): Promise<OidcService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-oidc-'));
  const database = TEST_DB === 'postgres' ? await freshDatabase() : undefined;
  const settings = {
    PORT: String(at.port),
    PUBLIC_URL: at.url,
    NODE_EXTRA_CA_CERTS: ca.caFile,
    ...(database && { DATABASE_URL: database.url, JWT_SECRET: randomBytes(32).toString('hex') }),
    ...env,
  };
  const instance = await startInstance('oidc', { DATA_DIR: dataDir, ...settings });
  const pool = database ? new pg.Pool({ connectionString: database.url, max: 2 }) : undefined;
  const sqlite = database ? undefined : new SQLite(path.join(dataDir, 'maproom.db'));
  sqlite?.pragma('busy_timeout = 5000');
  return {
    url: instance.url,
    instance,
    env: settings,
    async sql<T>(query: string, ...params: unknown[]) {
      if (sqlite) {
        const statement = sqlite.prepare(query);
        if (statement.reader) return statement.all(...params) as T[];
        statement.run(...params);
        return [];
      }
      let n = 0;
      return (
        await pool!.query(
          query.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    },
    async stop() {
      sqlite?.close();
      await pool?.end();
      await instance.stop();
      await database?.drop();
    },
  };
}

/** A password account made through the API (the sign-up route), its address confirmed or not. */
export async function passwordAccount(service: OidcService, email: string, confirmed: boolean) {
  const answer = await request(service.instance, 'POST', '/api/auth/signup', {
    body: { email, password: 'correct horse battery', name: 'Password person' },
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  if (confirmed)
    await service.sql('UPDATE users SET email_verified_at = ? WHERE id = ?', Date.now(), answer.body.user.id);
  return answer.body as { token: string; user: { id: string; email: string } };
}

/**
 * Starts a sign-in at the service and goes through the provider's own pages (its login form
 * with `login` as the account, then its consent form) until the provider sends the browser
 * back: answers that callback address, not yet visited.
 */
export async function reachCallback(
  browser: BrowserClient,
  service: { url: string },
  providerId: string,
  login: string,
  returnTo?: string,
): Promise<string> {
  const query = returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(returnTo)}`;
  let answer: Answer = await browser.get(`${service.url}/api/auth/oidc/${providerId}/start${query}`);
  assert.equal(answer.status, 302, answer.body);
  for (let step = 0; step < 20; step++) {
    if (answer.location?.startsWith(`${service.url}/`)) return answer.location;
    if (answer.location) {
      answer = await browser.get(answer.location);
      continue;
    }
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/.exec(answer.body);
    assert.ok(form, `no form on the provider's page (${answer.status}): ${answer.body.slice(0, 500)}`);
    const action = new URL(form[1]!.replace(/&amp;/g, '&'), answer.url).href;
    const prompt = /name="prompt" value="(\w+)"/.exec(answer.body)?.[1];
    answer =
      prompt === 'login'
        ? await browser.post(action, { prompt, login, password: 'any password' })
        : await browser.post(action, { prompt: prompt ?? 'consent' });
  }
  assert.fail('the provider never sent the browser back');
}

/**
 * What the landing page does: trades the browser's hand-over cookie (set by the callback) for
 * the session, `POST /api/auth/oidc/session`. Answers the answer; `token` when it was 200.
 */
export async function handOver(browser: BrowserClient, service: { url: string }) {
  const answer = await browser.post(`${service.url}/api/auth/oidc/session`);
  const body = answer.body ? JSON.parse(answer.body) : {};
  return { answer, body, token: answer.status === 200 ? (body.token as string) : null };
}

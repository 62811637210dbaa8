import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import { createServer as createPlainServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Provider from 'oidc-provider';

/**
 * A real OpenID Provider for the sign-in tests: the certified `oidc-provider` package on
 * 127.0.0.1 over HTTPS, with a certificate of a throw-away CA (the service trusts it through
 * NODE_EXTRA_CA_CERTS), and its development login form (any login and password; the login is
 * the account's `sub`).
 */

export interface TestCa {
  /** The CA certificate (PEM file) to trust. */
  caFile: string;
  ca: Buffer;
  /** The server's key and certificate for 127.0.0.1 and localhost. */
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

/** A CA and a server certificate signed by it, made with the openssl command line. */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-ca-'));
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Maproom test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('server.ext'),
  );
  return {
    caFile: at('ca.pem'),
    ca: readFileSync(at('ca.pem')),
    key: readFileSync(at('server.key')),
    cert: readFileSync(at('server.pem')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A port nobody listens on now (the service is told its PUBLIC_URL before it starts). */
export async function freePort(): Promise<number> {
  const server = createPlainServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const CLIENT_ID = 'maproom';
export const CLIENT_SECRET = 'maproom-test-secret-0123456789abcdef';

export interface TestProvider {
  issuer: string;
  /** The claims each login gets (besides `sub`, the login itself); unknown logins get a verified `<login>@example.org`. */
  accounts: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts the provider with one confidential client whose redirect URIs are `redirectUris` (on `port`, else a free one). */
export async function startOidcProvider(ca: TestCa, redirectUris: string[], port?: number): Promise<TestProvider> {
  const accounts = new Map<string, Record<string, unknown>>();
  port ??= await freePort();
  const issuer = `https://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups', 'locale'] },
    cookies: { keys: ['maproom-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({
        sub,
        ...(accounts.get(sub) ?? { email: `${sub}@example.org`, email_verified: true, name: sub }),
      }),
    }),
  });
  const server: Server = createServer({ key: ca.key, cert: ca.cert }, provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

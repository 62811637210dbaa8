import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/** An external identity provider for tests: a JWKS endpoint on 127.0.0.1 and a signer for its key. */

export const IDP_ISSUER = 'https://idp.test';
export const IDP_AUDIENCE = 'maproom-test';

/** The settings that make an app trust `idp`. */
export const trusting = (idp: Idp) => ({ authJwksUrl: idp.url, authIssuer: IDP_ISSUER, authAudience: IDP_AUDIENCE });

export interface Idp {
  url: string;
  sign(
    claims: Record<string, unknown>,
    options?: { audience?: string; issuer?: string; foreign?: boolean },
  ): Promise<string>;
  close(): Promise<void>;
}

/** A real JWKS endpoint on 127.0.0.1 and a signer for its key (and for a key it does not publish). */
export async function startIdp(): Promise<Idp> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    async sign(claims, options = {}) {
      // The foreign key claims the published kid, so only the signature check can refuse it.
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-key-1', typ: 'JWT' })
        .setIssuer(options.issuer ?? IDP_ISSUER)
        .setAudience(options.audience ?? IDP_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(options.foreign ? foreign.privateKey : privateKey);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

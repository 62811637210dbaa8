import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/schemas.js';
import type { OidcClients } from './oidc-clients.js';
import { Session } from '../users/users.schemas.js';
import { ProviderParams, Redirect, SignInOptions, StartQuery } from './oidc.schemas.js';
import { FLOW_COOKIE, HANDOVER_COOKIE, HANDOVER_PATH, type OidcSignIn } from './oidc.service.js';

/** The cookie `name` of a Cookie header (undefined when absent). */
function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

export const oidcRoutes: FastifyPluginAsyncTypebox<{
  signIn: OidcSignIn;
  clients: OidcClients;
  options: { localAccounts: boolean; signup: 'open' | 'invite' | 'closed' };
  rateLimitPerMinute: number;
}> = async (app, { signIn, clients, options, rateLimitPerMinute }) => {
  const rateLimit = { max: rateLimitPerMinute, timeWindow: 60_000 };

  app.get('/api/auth/providers', {
    schema: {
      tags: ['accounts'],
      summary: 'How one may sign in: e-mail and password, the sign-up policy, the identity providers',
      response: { 200: SignInOptions },
    },
    handler: async () => ({ ...options, providers: clients.list() }),
  });

  app.get('/api/auth/oidc/:providerId/start', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: "Sign in with an identity provider: a browser's redirect to the provider",
      description:
        'Answers 302 to the provider (authorization code flow with PKCE S256, state and nonce) and sets an ' +
        'httpOnly cookie, limited to the callback, that binds the sign-in to this browser. When the provider ' +
        'cannot be reached, 302 to `/signed-in#error=provider_unavailable&returnTo=...`. An unknown provider is 404.',
      params: ProviderParams,
      querystring: StartQuery,
      response: { 302: Redirect, ...errors(400, 404, 429) },
    },
    handler: async (request, reply) => {
      const step = await signIn.start(request.params.providerId, request.query.returnTo);
      return reply.header('set-cookie', step.cookies).header('cache-control', 'no-store').redirect(step.location, 302);
    },
  });

  app.get('/api/auth/oidc/:providerId/callback', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Where the identity provider sends the browser back: 302 into the web app, signed in',
      description:
        'Register `<PUBLIC_URL>/api/auth/oidc/<providerId>/callback` at the provider. Signed in: 302 to ' +
        '`/signed-in#returnTo=<path>` with an httpOnly cookie, limited to `POST /api/auth/oidc/session` and ' +
        'valid for a minute, which that page trades for the session (no session token in the address). Refused: 302 to `/signed-in#error=<code>&returnTo=<path>`, code one of sign_in_expired ' +
        '(state unknown, used or expired), sign_in_mismatch (the cookie of the start is missing or another), ' +
        'provider_refused, sign_in_failed, provider_unavailable, email_unverified, signup_closed, account_disabled. ' +
        'An unknown provider is 404.',
      params: ProviderParams,
      response: { 302: Redirect, ...errors(404, 429) },
    },
    handler: async (request, reply) => {
      const at = request.url.indexOf('?');
      const query = at >= 0 ? request.url.slice(at) : '';
      const cookie = cookieOf(request.headers.cookie, FLOW_COOKIE);
      const step = await signIn.callback(request.params.providerId, query, cookie);
      return reply.header('set-cookie', step.cookies).header('cache-control', 'no-store').redirect(step.location, 302);
    },
  });

  app.post(HANDOVER_PATH, {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'The session of the sign-in with an identity provider that this browser just finished',
      description:
        'The landing page `/signed-in` asks it once: the callback gave this browser an httpOnly cookie for it, ' +
        'valid for a minute and single use (cleared by the answer). Without that cookie (a landing page no ' +
        'callback sent this browser to) 400 sign_in_mismatch; an unknown, used or expired one 400 ' +
        'sign_in_expired; an account disabled since 403 account_disabled.',
      response: { 200: Session, ...errors(400, 403, 429) },
    },
    handler: async (request, reply) => {
      reply.header('set-cookie', signIn.clearedHandover()).header('cache-control', 'no-store');
      return signIn.handOver(cookieOf(request.headers.cookie, HANDOVER_COOKIE));
    },
  });
};

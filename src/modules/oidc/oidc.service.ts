import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import type { OidcProviderSetting } from '../../config.js';
import { AppError, accountDisabled, signInRefused } from '../../errors.js';
import { sha256 } from '../../ids.js';
import type { SessionKeys } from '../../auth/sessions.js';
import { presentUser } from '../users/users.presenter.js';
import type { UsersRepository } from '../users/users.repository.js';
import type { PendingInvitations } from '../users/users.service.js';
import type { OidcAccounts, ProviderClaims } from './oidc-accounts.js';
import type { OidcClients } from './oidc-clients.js';
import type { OidcFlowsRepository } from './oidc-flows.repository.js';
import { safeReturnTo } from './return-to.js';

/** The cookie that binds a sign-in to the browser that started it. */
export const FLOW_COOKIE = 'maproom_oidc';
/**
 * The cookie that hands a finished sign-in to the browser that started it: httpOnly, sent only
 * to the hand-over route, for a minute.
 */
export const HANDOVER_COOKIE = 'maproom_oidc_handover';
export const HANDOVER_PATH = '/api/auth/oidc/session';
/** How long a finished sign-in waits for its landing page: fixed, the page asks at once. */
export const HANDOVER_SECONDS = 60;
/** The web app's page that finishes a sign-in: `#returnTo=...` (then it asks the hand-over), or `#error=<code>&returnTo=...`. */
export const LANDING_PATH = '/signed-in';
const SCOPE = 'openid email profile';

interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface OidcSignInParts {
  clients: OidcClients;
  flows: OidcFlowsRepository;
  accounts: OidcAccounts;
  sessions: Pick<SessionKeys, 'issue'>;
  users: Pick<UsersRepository, 'findById'>;
  invitations: PendingInvitations;
  /** PUBLIC_URL (or the listening address): the callback's address registered at the providers. */
  publicUrl: string;
  flowSeconds: number;
  log: Logger;
}

/** Where the browser goes next, and the cookies to set (or clear). */
export interface BrowserStep {
  location: string;
  cookies: string[];
}

/**
 * Sign-in with an OpenID Connect provider: the authorization code flow with PKCE (S256),
 * `state` and `nonce`. The start keeps the flow in the database (any instance may receive the
 * callback) and gives the browser a secret cookie; the callback takes the flow once, checks the
 * cookie, lets openid-client check the response (state, PKCE, the ID token and its nonce), and
 * sends the browser back into the web app signed in, or with the refusal's code.
 */
export class OidcSignIn {
  private readonly parts: OidcSignInParts;

  constructor(parts: OidcSignInParts) {
    this.parts = parts;
  }

  callbackUrl(providerId: string): string {
    return `${this.parts.publicUrl}/api/auth/oidc/${providerId}/callback`;
  }

  async start(providerId: string, returnTo: unknown): Promise<BrowserStep> {
    const { clients, flows, flowSeconds } = this.parts;
    const provider = clients.provider(providerId);
    const back = safeReturnTo(returnTo);
    let config: client.Configuration;
    try {
      config = await clients.configuration(provider);
    } catch (error) {
      if (error instanceof AppError) return this.refused(provider, error, back);
      throw error;
    }
    const browserSecret = randomBytes(32).toString('base64url');
    const state = client.randomState();
    const { verifier, nonce } = derived(browserSecret, state);
    await flows.insert({
      state_hash: sha256(state),
      browser_hash: sha256(browserSecret),
      provider_id: provider.id,
      return_to: back,
      expires_at: Date.now() + flowSeconds * 1000,
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl(provider.id),
      scope: SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { location: url.href, cookies: [this.cookie(provider.id, browserSecret, flowSeconds)] };
  }

  /** `query`: the callback's query string as received (with its leading `?`, or empty). */
  async callback(providerId: string, query: string, cookieValue: string | undefined): Promise<BrowserStep> {
    const provider = this.parts.clients.provider(providerId);
    const params = new URLSearchParams(query);
    const flow = await this.takeFlow(provider.id, params.get('state'));
    try {
      if (!flow)
        throw signInRefused('sign_in_expired', 'This sign-in was already used, has expired, or was not started here');
      if (!cookieValue || !sameHash(flow.browser_hash, sha256(cookieValue)))
        throw signInRefused('sign_in_mismatch', 'This sign-in was started in another browser, or its cookie was lost');
      const providerError = params.get('error');
      if (providerError)
        throw signInRefused(
          'provider_refused',
          `The identity provider refused the sign-in (${providerError.slice(0, 100)})`,
        );
      const claims = await this.exchange(provider, params, cookieValue, flow.state);
      const user = await this.parts.accounts.signIn(provider, claims);
      await this.parts.invitations.acceptPending({
        userId: user.id,
        email: user.email,
        emailVerified: user.email_verified_at !== null,
      });
      // The session goes only to this browser: its landing page trades the hand-over cookie for it.
      const handover = randomBytes(32).toString('base64url');
      await this.parts.flows.insertHandover({
        secret_hash: sha256(handover),
        user_id: user.id,
        expires_at: Date.now() + HANDOVER_SECONDS * 1000,
      });
      const fragment = new URLSearchParams({ returnTo: flow.return_to });
      return {
        location: `${LANDING_PATH}#${fragment}`,
        cookies: [this.cookie(provider.id, '', 0), this.handoverCookie(handover, HANDOVER_SECONDS)],
      };
    } catch (error) {
      if (error instanceof AppError) return this.refused(provider, error, flow?.return_to ?? '/');
      throw error;
    }
  }

  /**
   * The session of the sign-in this browser finished (its hand-over cookie), once: no cookie is
   * 400 sign_in_mismatch (a landing page that no callback sent this browser to); an unknown, used
   * or expired one is 400 sign_in_expired; an account disabled meanwhile is 403 account_disabled.
   */
  async handOver(cookieValue: string | undefined) {
    if (!cookieValue || cookieValue.length > 100)
      throw signInRefused('sign_in_mismatch', 'No sign-in with an identity provider was finished in this browser');
    const handover = await this.parts.flows.takeHandover(sha256(cookieValue));
    const user = handover && handover.expires_at >= Date.now() && (await this.parts.users.findById(handover.user_id));
    if (!user || user.deleted_at !== null)
      throw signInRefused('sign_in_expired', 'This sign-in was already used or has expired; sign in again');
    if (user.disabled_at !== null) throw accountDisabled();
    return { token: await this.parts.sessions.issue(user), user: presentUser(user) };
  }

  /** The hand-over cookie cleared (after the trade, whatever its outcome). */
  clearedHandover(): string {
    return this.handoverCookie('', 0);
  }

  /** Forgets the sign-ins that were started and never finished (a sweep). */
  async sweep(): Promise<void> {
    await this.parts.flows.sweep(Date.now());
  }

  private async takeFlow(providerId: string, state: string | null) {
    if (!state || state.length > 512) return undefined;
    const flow = await this.parts.flows.take(sha256(state));
    if (!flow || flow.provider_id !== providerId || flow.expires_at < Date.now()) return undefined;
    return { ...flow, state };
  }

  /** The code for tokens; openid-client checks state, PKCE, issuer, and the ID token with its nonce. */
  private async exchange(
    provider: OidcProviderSetting,
    params: URLSearchParams,
    browserSecret: string,
    state: string,
  ): Promise<ProviderClaims> {
    const config = await this.parts.clients.configuration(provider);
    const { verifier, nonce } = derived(browserSecret, state);
    const currentUrl = new URL(this.callbackUrl(provider.id));
    currentUrl.search = params.toString();
    try {
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: verifier,
        expectedNonce: nonce,
        expectedState: state,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims()!;
      const wanted = ['email', 'email_verified', provider.adminClaim?.split('=')[0]];
      if (wanted.every((claim) => !claim || claim in idClaims) || !config.serverMetadata().userinfo_endpoint)
        return { ...idClaims };
      return { ...(await this.userinfo(config, tokens.access_token, idClaims)), ...idClaims, sub: idClaims.sub };
    } catch (error) {
      this.parts.log.warn({ err: error, provider: provider.id }, 'an identity provider sign-in failed its checks');
      throw signInRefused('sign_in_failed', 'The identity provider\u2019s answer could not be checked; start again');
    }
  }

  /** What userinfo adds to the ID token; nothing when it fails but the ID token has the address. */
  private async userinfo(
    config: client.Configuration,
    accessToken: string,
    idClaims: { sub: string; email?: unknown },
  ) {
    try {
      return await client.fetchUserInfo(config, accessToken, idClaims.sub);
    } catch (error) {
      if (typeof idClaims.email !== 'string') throw error;
      this.parts.log.warn({ err: error }, "an identity provider's userinfo failed; its ID token's claims are used");
      return {};
    }
  }

  private refused(provider: OidcProviderSetting, error: AppError, returnTo: string): BrowserStep {
    this.parts.log.info({ provider: provider.id, refusal: error.code }, 'an identity provider sign-in was refused');
    const fragment = new URLSearchParams({ error: error.code, returnTo });
    return { location: `${LANDING_PATH}#${fragment}`, cookies: [this.cookie(provider.id, '', 0)] };
  }

  /**
   * httpOnly, SameSite=Lax, only to the hand-over route. A link to the landing page cannot
   * carry it (another site's page cannot set it, and a cross-site POST does not send it).
   */
  private handoverCookie(value: string, maxAgeSeconds: number): string {
    const secure = this.parts.publicUrl.startsWith('https:') ? '; Secure' : '';
    return `${HANDOVER_COOKIE}=${value}; Path=${HANDOVER_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
  }

  /** httpOnly, SameSite=Lax (sent on the provider's top-level redirect back), only to this provider's callback. */
  private cookie(providerId: string, value: string, maxAgeSeconds: number): string {
    const secure = this.parts.publicUrl.startsWith('https:') ? '; Secure' : '';
    const path = `/api/auth/oidc/${providerId}/callback`;
    return `${FLOW_COOKIE}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
  }
}

/**
 * The PKCE verifier and the nonce of a flow, derived from the browser's secret and the state:
 * the database keeps neither, so reading it is not enough to finish someone's sign-in.
 */
function derived(browserSecret: string, state: string) {
  const mac = (purpose: string) =>
    createHmac('sha256', browserSecret).update(`${purpose}:${state}`).digest('base64url');
  return { verifier: mac('pkce'), nonce: mac('nonce') };
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

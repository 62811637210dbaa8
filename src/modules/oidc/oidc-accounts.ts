import { isUniqueViolation } from '../../db/database.js';
import { normalizeEmail } from '../../emails.js';
import { accountDisabled, emailUnverified, signInRefused } from '../../errors.js';
import { newId } from '../../ids.js';
import { localeOfTag } from '../../locales.js';
import type { SignupPolicy } from '../users/signup-policy.js';
import type { AccountHolders } from '../users/account-holders.js';
import type { ProviderAccountsRepository, UserRow, UsersRepository } from '../users/users.repository.js';
import { ACTIVE_ACCOUNT } from '../users/users.repository.js';
import type { IdentitiesRepository } from './identities.repository.js';

/** What a provider said about the person, from its ID token and userinfo. */
export type ProviderClaims = Record<string, unknown> & { sub: string };

export interface OidcAccountsParts {
  users: UsersRepository;
  providerAccounts: ProviderAccountsRepository;
  /** Claims an unproven account for the address's owner (ends what its maker had). */
  holders: Pick<AccountHolders, 'claimUnproven'>;
  identities: IdentitiesRepository;
  policy: Pick<SignupPolicy, 'check'>;
}

/**
 * Which account a provider's person signs in to: the one linked to their identity (provider,
 * `sub`); else the account with the same address when the provider vouches for it
 * (`email_verified: true`), never otherwise; else a new account, if the sign-up policy allows
 * it. A disabled account is refused; the admin claim is read again at every sign-in. A new
 * account's e-mails are in the language of the `locale` claim when it is one the service
 * speaks (else English); an existing account keeps the language it has.
 */
export class OidcAccounts {
  private readonly users: UsersRepository;
  private readonly providerAccounts: ProviderAccountsRepository;
  private readonly holders: OidcAccountsParts['holders'];
  private readonly identities: IdentitiesRepository;
  private readonly policy: Pick<SignupPolicy, 'check'>;

  constructor(parts: OidcAccountsParts) {
    ({
      users: this.users,
      providerAccounts: this.providerAccounts,
      holders: this.holders,
      identities: this.identities,
      policy: this.policy,
    } = parts);
  }

  async signIn(provider: { id: string; adminClaim?: string }, claims: ProviderClaims): Promise<UserRow> {
    const user = (await this.identities.userOf(provider.id, claims.sub)) ?? (await this.firstSignIn(provider, claims));
    if (user.disabled_at !== null) throw accountDisabled();
    const admin = namesAdmin(provider.adminClaim, claims);
    if ((user.provider_admin === 1) !== admin) await this.providerAccounts.setProviderAdmin(user.id, admin);
    return { ...user, provider_admin: admin ? 1 : 0 };
  }

  private async firstSignIn(provider: { id: string }, claims: ProviderClaims): Promise<UserRow> {
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : '';
    if (!email.includes('@'))
      throw signInRefused('sign_in_failed', 'The identity provider did not give an e-mail address for this person');
    const vouched = claims.email_verified === true;
    const now = Date.now();
    const existing = await this.users.findByEmail(email);
    if (existing && existing.deleted_at === null) {
      if (!vouched) throw emailUnverified();
      if (existing.email_verified_at === null) await this.holders.claimUnproven(existing.id, now);
      await this.identities.link(provider.id, claims.sub, existing.id, now);
      return (await this.users.findById(existing.id)) ?? existing;
    }
    await this.policy.check(email);
    const user: UserRow = {
      id: newId('user'),
      email,
      name: nameOf(claims),
      password_hash: null,
      created_at: now,
      email_verified_at: vouched ? now : null,
      // The provider's word on the person's language, when it is one the service speaks.
      locale: localeOfTag(claims.locale),
      ...ACTIVE_ACCOUNT,
    };
    try {
      await this.users.insert(user);
    } catch (error) {
      // The same person's other sign-in made the account a moment ago: the next attempt links it.
      if (isUniqueViolation(error))
        throw signInRefused('sign_in_failed', 'This account was being created by another sign-in; try again');
      throw error;
    }
    await this.identities.link(provider.id, claims.sub, user.id, now);
    return user;
  }
}

/** The person's name from the claims: `name`, else given and family names; null when none. */
function nameOf(claims: ProviderClaims): string | null {
  const parts = [claims.given_name, claims.family_name].filter((part) => typeof part === 'string' && part.trim());
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name : parts.join(' ');
  return name.trim().slice(0, 100) || null;
}

/** Whether `claim=value` names this person: the claim equals the value, or is a list holding it. */
export function namesAdmin(adminClaim: string | undefined, claims: Record<string, unknown>): boolean {
  if (!adminClaim) return false;
  const split = adminClaim.indexOf('=');
  const claim = claims[adminClaim.slice(0, split)];
  const value = adminClaim.slice(split + 1);
  return Array.isArray(claim) ? claim.includes(value) : claim === value;
}

import { oidcProvidersOf } from '../../config.js';
import { defineDomain, type DomainCore, HOUR_MS, routes } from '../domain/domain.js';
import type { MembersRepository } from '../members/members.repository.js';
import type { AccountHolders } from '../users/account-holders.js';
import { SignupPolicy } from '../users/signup-policy.js';
import { ProviderAccountsRepository, type UsersRepository } from '../users/users.repository.js';
import { IdentitiesRepository } from './identities.repository.js';
import { OidcAccounts } from './oidc-accounts.js';
import { OidcClients } from './oidc-clients.js';
import { OidcFlowsRepository } from './oidc-flows.repository.js';
import { oidcRoutes } from './oidc.routes.js';
import { OidcSignIn, type OidcSignInParts } from './oidc.service.js';

/** Sign-in with the identity providers of the settings (none: the routes list none and answer 404). */
export function oidcDomain(
  core: DomainCore,
  parts: Pick<OidcSignInParts, 'sessions' | 'invitations' | 'publicUrl' | 'log'> & {
    holders: AccountHolders;
    users: UsersRepository;
    members: MembersRepository;
  },
) {
  const { db, config } = core;
  const { members, holders, users, ...rest } = parts;
  const clients = new OidcClients(oidcProvidersOf(config), parts.log, config.oidcDiscoveryTimeoutSeconds);
  const accounts = new OidcAccounts({
    users,
    providerAccounts: new ProviderAccountsRepository(db),
    holders,
    identities: new IdentitiesRepository(db),
    policy: new SignupPolicy(config, members),
  });
  const signIn = new OidcSignIn({
    ...rest,
    users,
    clients,
    flows: new OidcFlowsRepository(db),
    accounts,
    flowSeconds: config.oidcFlowSeconds,
  });
  return defineDomain({
    name: 'oidc',
    routes: [
      routes(oidcRoutes, {
        signIn,
        clients,
        options: { localAccounts: config.localAccounts === 'on', signup: config.signup },
        rateLimitPerMinute: config.authRateLimitPerMinute,
      }),
    ],
    sweeps: [{ name: 'unfinished identity provider sign-ins', everyMs: HOUR_MS, run: () => signIn.sweep() }],
  });
}

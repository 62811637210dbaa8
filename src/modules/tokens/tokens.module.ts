import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { TokensRepository } from './tokens.repository.js';
import { tokensRoutes } from './tokens.routes.js';
import { TokensService } from './tokens.service.js';

/** A room's API tokens; `tokenUsed` records a token's use for the authenticator. */
export function tokensDomain({ db, access }: DomainCore) {
  const tokens = new TokensRepository(db);
  const service = new TokensService(tokens, access);
  return defineDomain(
    { name: 'tokens', routes: [routes(tokensRoutes, { tokens: service })] },
    { tokens, tokenUsed: (tokenId: string, at: number) => service.recordUse(tokenId, at) },
  );
}

import type { Actor } from '../../auth/access.js';
import { inChunks } from '../../db/room-table.js';
import type { TokensRepository } from '../tokens/tokens.repository.js';
import type { UsersRepository } from './users.repository.js';

/**
 * Display names of who acted: a user's name, else their e-mail; a room token's name. Read when
 * an answer is made (history, comments, presence), so a renamed user shows the new name. A token
 * that was revoked (its row is gone) or a user that no longer exists is named by its id.
 */
export class ActorNames {
  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: TokensRepository,
  ) {}

  /** The names of these actors, keyed by `nameKey`. */
  async of(actors: Iterable<Actor>): Promise<Map<string, string>> {
    const ids = { user: new Set<string>(), token: new Set<string>() };
    for (const actor of actors) ids[actor.kind].add(actor.id);
    const names = new Map<string, string>();
    for (const chunk of inChunks([...ids.user])) {
      for (const user of await this.users.namesOf(chunk))
        names.set(nameKey({ kind: 'user', id: user.id }), user.name || user.email);
    }
    for (const chunk of inChunks([...ids.token])) {
      for (const token of await this.tokens.namesOf(chunk))
        names.set(nameKey({ kind: 'token', id: token.id }), token.name);
    }
    return names;
  }

  /** One actor's name (its id when it has none any more). */
  async one(actor: Actor): Promise<string> {
    return (await this.of([actor])).get(nameKey(actor)) ?? actor.id;
  }
}

export const nameKey = (actor: Actor) => `${actor.kind}|${actor.id}`;

import type { Actor } from '../../auth/access.js';
import { inChunks } from '../../db/room-table.js';
import type { TokensRepository } from '../tokens/tokens.repository.js';
import type { UsersRepository } from './users.repository.js';

/**
 * Display names of who acted: a user's name, else (only with `emails`) their e-mail; a room
 * token's name. Read when an answer is made (history, comments, presence), so a renamed user
 * shows the new name. A token that was revoked (its row is gone) or a user that no longer exists
 * is named by its id; a deleted account by the name it had, marked ("Ann (deleted account)"), or
 * "Deleted account" (never its placeholder address). E-mails are for those who may list the members (a member's session,
 * `seesMemberEmails`) and presence (members and tokens only): never for a public room's readers,
 * nor in what history stores or the live channel sends to every reader.
 */
export class ActorNames {
  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: TokensRepository,
  ) {}

  /** The names of these actors, keyed by `nameKey`. */
  async of(actors: Iterable<Actor>, { emails = false }: { emails?: boolean } = {}): Promise<Map<string, string>> {
    const ids = { user: new Set<string>(), token: new Set<string>() };
    for (const actor of actors) ids[actor.kind].add(actor.id);
    const names = new Map<string, string>();
    for (const chunk of inChunks([...ids.user])) {
      for (const user of await this.users.namesOf(chunk)) {
        const name = user.deleted_at !== null ? deletedName(user.name) : user.name || (emails ? user.email : '');
        if (name) names.set(nameKey({ kind: 'user', id: user.id }), name);
      }
    }
    for (const chunk of inChunks([...ids.token])) {
      for (const token of await this.tokens.namesOf(chunk))
        names.set(nameKey({ kind: 'token', id: token.id }), token.name);
    }
    return names;
  }

  /** One actor's name (its id when it has none any more). */
  async one(actor: Actor, options: { emails?: boolean } = {}): Promise<string> {
    return (await this.of([actor], options)).get(nameKey(actor)) ?? actor.id;
  }
}

export const nameKey = (actor: Actor) => `${actor.kind}|${actor.id}`;

/** How a deleted account is named where its work stays (history, comments). */
export const deletedName = (name: string | null) => (name ? `${name} (deleted account)` : 'Deleted account');

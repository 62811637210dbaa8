import { forbidden, unauthorized } from '../errors.js';
import { actorOf, type Actor, type Caller, type Capability, type Grant } from './access.js';

/**
 * Rules about particular objects, beside `access()` (which decides what a caller may do in
 * a room). Each rule is a pure function of the caller, what `access()` granted, and the
 * object; a refusal throws the error to answer.
 */

/** The capability each action of `GET /permissions` asks for. */
const ACTION_CAPABILITY = {
  view: 'read',
  edit: 'write',
  delete: 'write',
  invite: 'owner',
  manage_members: 'owner',
  delete_room: 'owner',
} as const satisfies Record<string, Capability>;

export type RoomAction = keyof typeof ACTION_CAPABILITY;

/** Whether the grant allows an action of `GET /permissions`. */
export const mayPerform = (grant: Grant, action: RoomAction): boolean =>
  grant.capabilities.has(ACTION_CAPABILITY[action]);

/**
 * Deleting something authored (a comment, a reply): its author may; otherwise only a user
 * session with write (owner, editor). A room token or a viewer deletes only its own.
 */
export function authorizeDeleteAuthored(
  caller: Caller,
  grant: Grant,
  author: Actor,
  what: 'comments' | 'replies',
): void {
  const actor = actorOf(caller);
  if (author.kind === actor.kind && author.id === actor.id) return;
  if (caller.kind === 'token') throw forbidden(`A room token may delete only the ${what} it wrote`);
  if (!grant.capabilities.has('write')) throw forbidden(`The ${grant.role} role may delete only its own ${what}`);
}

/**
 * Restoring something authored (a comment, a reply) edits it: as with deleting, a room token
 * restores only what it wrote; a user session with write (owner, editor) restores any.
 */
export function authorizeRestoreAuthored(caller: Caller, author: Actor, what: 'comments' | 'replies'): void {
  if (caller.kind !== 'token') return;
  const actor = actorOf(caller);
  if (author.kind !== actor.kind || author.id !== actor.id) {
    throw forbidden(`A room token may restore only the ${what} it wrote`);
  }
}

/**
 * Presence (who has the room open, their pointers) is among the room's members and tokens: a
 * signed-in non-member or an anonymous reader of a public room is neither listed nor told, and
 * does not learn the members' names or e-mails.
 */
export const takesPartInPresence = (caller: Caller, grant: Grant): boolean =>
  (caller.kind === 'token' && !caller.embed) || (caller.kind === 'user' && grant.role !== 'none');

/** `GET /presence`: members and the room's tokens (with read, which the route asks first). */
export function authorizePresence(caller: Caller, grant: Grant): void {
  if (caller.kind === 'anonymous') throw unauthorized();
  if (!takesPartInPresence(caller, grant)) throw forbidden('Only members of the room and its tokens see who is here');
}

/**
 * Whether answers may name a member by e-mail (a user without a name): as `GET /members`, for a
 * member's session only. A public room's anonymous or non-member readers and room tokens read
 * history and comments, but never members' e-mails.
 */
export const seesMemberEmails = (caller: Caller, grant: Grant): boolean =>
  caller.kind === 'user' && grant.role !== 'none';

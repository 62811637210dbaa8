import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { access, type Caller, type RoomFacts } from '../../src/auth/access.js';
import { authorizeDeleteAuthored, mayPerform, type RoomAction } from '../../src/auth/policies.js';
import { AppError } from '../../src/errors.js';

const ROOM = 'room-00001';
const room = (role: RoomFacts['role'], isPublic = false): RoomFacts => ({
  isPublic,
  presentationIsPublic: false,
  role,
});
const user = (userId: string): Caller => ({
  kind: 'user',
  userId,
  email: `${userId}@example.com`,
  emailVerified: true,
});
const token = (tokenId: string, permissions: ('read' | 'write' | 'upload')[]): Caller => ({
  kind: 'token',
  tokenId,
  roomId: ROOM,
  permissions,
});

/** The grant `access()` gives the caller for commenting, as the comment routes ask. */
const commenter = (caller: Caller, facts: RoomFacts) => access(facts, ROOM, caller, 'comment');

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError && error.statusCode === 403, String(error));
    return error.message;
  }
  assert.fail('expected a refusal');
}

describe('authorizeDeleteAuthored', () => {
  const byViewer = { kind: 'user' as const, id: 'viewer' };
  const byToken = { kind: 'token' as const, id: 'token-a' };

  test('the author may always delete their own', () => {
    assert.doesNotThrow(() =>
      authorizeDeleteAuthored(user('viewer'), commenter(user('viewer'), room('viewer')), byViewer, 'comments'),
    );
    const writer = token('token-a', ['write']);
    assert.doesNotThrow(() => authorizeDeleteAuthored(writer, commenter(writer, room(null)), byToken, 'replies'));
  });

  test('owners and editors may delete anyone’s', () => {
    for (const role of ['owner', 'editor'] as const) {
      assert.doesNotThrow(() =>
        authorizeDeleteAuthored(user(role), commenter(user(role), room(role)), byViewer, 'comments'),
      );
      assert.doesNotThrow(() =>
        authorizeDeleteAuthored(user(role), commenter(user(role), room(role)), byToken, 'comments'),
      );
    }
  });

  test('a viewer deletes only its own, naming its role', () => {
    const other = user('other-viewer');
    assert.equal(
      refusal(() => authorizeDeleteAuthored(other, commenter(other, room('viewer')), byViewer, 'comments')),
      'The viewer role may delete only its own comments',
    );
  });

  test('a token deletes only what it wrote, even with write, and even another token’s', () => {
    const writer = token('token-b', ['read', 'write']);
    assert.equal(
      refusal(() => authorizeDeleteAuthored(writer, commenter(writer, room(null)), byToken, 'replies')),
      'A room token may delete only the replies it wrote',
    );
    assert.equal(
      refusal(() => authorizeDeleteAuthored(writer, commenter(writer, room(null)), byViewer, 'comments')),
      'A room token may delete only the comments it wrote',
    );
  });

  test('a user with the same id as a token is not its author', () => {
    const namesake = user('token-a');
    assert.equal(
      refusal(() => authorizeDeleteAuthored(namesake, commenter(namesake, room('viewer')), byToken, 'comments')),
      'The viewer role may delete only its own comments',
    );
  });
});

describe('mayPerform', () => {
  const actions: RoomAction[] = ['view', 'edit', 'delete', 'invite', 'manage_members', 'delete_room'];
  const allowed = (caller: Caller, facts: RoomFacts) =>
    actions.filter((a) => mayPerform(access(facts, ROOM, caller, 'authenticated'), a));

  test('each role, a token and a stranger of a public room', () => {
    assert.deepEqual(allowed(user('o'), room('owner')), actions);
    assert.deepEqual(allowed(user('e'), room('editor')), ['view', 'edit', 'delete']);
    assert.deepEqual(allowed(user('v'), room('viewer')), ['view']);
    assert.deepEqual(allowed(user('s'), room(null, true)), ['view']);
    assert.deepEqual(allowed(user('s'), room(null)), []);
    assert.deepEqual(allowed(token('t', ['read', 'write', 'upload']), room(null)), ['view', 'edit', 'delete']);
    assert.deepEqual(allowed(token('t', ['write']), room(null)), ['edit', 'delete']);
  });
});

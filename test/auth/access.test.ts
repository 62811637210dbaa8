import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  access,
  requireAdmin,
  visitsOnlyTheDeck,
  type Caller,
  type RoomFacts,
  type RoomNeed,
} from '../../src/auth/access.js';
import { InstanceAdmins } from '../../src/auth/admins.js';
import { AppError } from '../../src/errors.js';
import { TOKEN_ERRORS } from '../helpers.js';

const ROOM = 'room-00001';
const privateRoom = (role: RoomFacts['role'] = null): RoomFacts => ({
  isPublic: false,
  presentationIsPublic: false,
  role,
});
const user: Caller = { kind: 'user', userId: 'user-1', email: 'a@example.com', emailVerified: true };
const anonymous: Caller = { kind: 'anonymous' };
const token = (permissions: ('read' | 'write' | 'upload')[], roomId = ROOM): Caller => ({
  kind: 'token',
  tokenId: 'token-1',
  roomId,
  permissions,
});

function refusal(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError, got ${error}`);
    return { status: error.statusCode, code: error.code, message: error.message };
  }
  assert.fail('expected a refusal');
}

describe('access()', () => {
  test('roles: owner does everything, editor all content, viewer reads and comments', () => {
    const needs: RoomNeed[] = ['read', 'comment', 'write', 'upload', 'member', 'editor', 'owner'];
    const allowed = (role: RoomFacts['role']) =>
      needs.filter((need) => {
        try {
          access(privateRoom(role), ROOM, user, need);
          return true;
        } catch {
          return false;
        }
      });
    assert.deepEqual(allowed('owner'), needs);
    assert.deepEqual(allowed('editor'), ['read', 'comment', 'write', 'upload', 'member', 'editor']);
    assert.deepEqual(allowed('viewer'), ['read', 'comment', 'member']);
    assert.deepEqual(allowed(null), []);
  });

  test('a viewer asking for write is forbidden, naming the role', () => {
    assert.deepEqual(
      refusal(() => access(privateRoom('viewer'), ROOM, user, 'write')),
      {
        status: 403,
        code: 'forbidden',
        message: 'The viewer role does not allow this operation',
      },
    );
  });

  test('public rooms are readable by anyone; the deck by anyone when it is public', () => {
    const publicRoom = { isPublic: true, presentationIsPublic: false, role: null };
    assert.equal(access(publicRoom, ROOM, anonymous, 'read').role, 'none');
    assert.equal(refusal(() => access(publicRoom, ROOM, anonymous, 'write')).status, 401);
    assert.equal(refusal(() => access(publicRoom, ROOM, user, 'member')).status, 403);
    assert.equal(refusal(() => access(privateRoom(), ROOM, anonymous, 'deck')).status, 401);
    const publicDeck = { isPublic: false, presentationIsPublic: true, role: null };
    assert.doesNotThrow(() => access(publicDeck, ROOM, anonymous, 'deck'));
    assert.equal(refusal(() => access(publicDeck, ROOM, anonymous, 'read')).status, 401);
  });

  test('shownByDeck: read, or anyone when the public deck shows the object; others hear 404, refusals stay as for read', () => {
    const deck = (shown: boolean, presentationIsPublic = true): RoomFacts => ({
      isPublic: false,
      presentationIsPublic,
      role: null,
      deckObject: { what: 'Image', shown },
    });
    // A visitor of the public deck (anonymous or a non-member) reaches what the slides show...
    for (const caller of [anonymous, user]) {
      assert.equal(access(deck(true), ROOM, caller, 'shownByDeck').capabilities.has('read'), false);
      // ...and nothing else of the room, as if it did not exist.
      assert.deepEqual(
        refusal(() => access(deck(false), ROOM, caller, 'shownByDeck')),
        { status: 404, code: 'not_found', message: 'Image not found' },
      );
      // Whether or not the deck is public, the room's other reads stay closed.
      assert.equal(refusal(() => access(deck(true), ROOM, caller, 'read')).status, caller === anonymous ? 401 : 403);
    }
    // A private deck opens nothing: the usual refusals, even for an object a slide shows.
    assert.equal(refusal(() => access(deck(true, false), ROOM, anonymous, 'shownByDeck')).status, 401);
    assert.equal(refusal(() => access(deck(true, false), ROOM, user, 'shownByDeck')).status, 403);
    // Readers of the room are not narrowed (the slides are not even looked at for them).
    assert.ok(
      access({ ...privateRoom('viewer'), presentationIsPublic: true }, ROOM, user, 'shownByDeck').capabilities.has(
        'read',
      ),
    );
    assert.ok(
      access(
        { isPublic: true, presentationIsPublic: true, role: null },
        ROOM,
        anonymous,
        'shownByDeck',
      ).capabilities.has('read'),
    );
    assert.equal(visitsOnlyTheDeck({ isPublic: true, presentationIsPublic: true, role: null }, anonymous), false);
    assert.equal(visitsOnlyTheDeck({ ...privateRoom('viewer'), presentationIsPublic: true }, user), false);
    assert.equal(visitsOnlyTheDeck({ ...privateRoom(), presentationIsPublic: true }, user), true);
    // Tokens: a token without read is refused as everywhere; one with read reads the room.
    assert.equal(
      refusal(() => access(deck(true), ROOM, token(['write']), 'shownByDeck')).message,
      TOKEN_ERRORS.lacksRead,
    );
    assert.doesNotThrow(() => access(deck(false), ROOM, token(['read']), 'shownByDeck'));
    assert.equal(
      refusal(() => access(deck(true), ROOM, token(['read'], 'elsewhere1'), 'shownByDeck')).message,
      TOKEN_ERRORS.wrongRoom,
    );
  });

  test('tokens: scope first, then permission, with the exact messages', () => {
    assert.deepEqual(
      refusal(() => access(privateRoom(), ROOM, token(['read'], 'other-room'), 'read')),
      {
        status: 403,
        code: 'forbidden',
        message: TOKEN_ERRORS.wrongRoom,
      },
    );
    assert.equal(refusal(() => access(null, ROOM, token(['read'], 'other-room'), 'read')).status, 403);
    assert.equal(refusal(() => access(privateRoom(), ROOM, token(['write']), 'read')).message, TOKEN_ERRORS.lacksRead);
    assert.equal(refusal(() => access(privateRoom(), ROOM, token(['read']), 'write')).message, TOKEN_ERRORS.lacksWrite);
    assert.equal(
      refusal(() => access(privateRoom(), ROOM, token(['read']), 'comment')).message,
      TOKEN_ERRORS.lacksWrite,
    );
    assert.equal(
      refusal(() => access(privateRoom(), ROOM, token(['write']), 'upload')).message,
      TOKEN_ERRORS.lacksUpload,
    );
    assert.doesNotThrow(() => access(privateRoom(), ROOM, token(['write']), 'comment'));
    assert.doesNotThrow(() => access(privateRoom(), ROOM, token(['upload']), 'upload'));
  });

  test('tokens never pass session-only needs, whatever their permissions', () => {
    for (const need of ['member', 'editor', 'owner'] as const) {
      assert.deepEqual(
        refusal(() => access(privateRoom(), ROOM, token(['read', 'write', 'upload']), need)).code,
        'api_token_not_allowed',
      );
      // Even a token of another room hears that tokens are not allowed here at all.
      assert.equal(
        refusal(() => access(privateRoom(), ROOM, token(['read'], 'elsewhere1'), need)).code,
        'api_token_not_allowed',
      );
    }
  });

  test('a missing room is 404 for users and anonymous callers', () => {
    assert.deepEqual(
      refusal(() => access(null, ROOM, user, 'read')),
      { status: 404, code: 'not_found', message: 'Room not found' },
    );
    assert.equal(refusal(() => access(null, ROOM, anonymous, 'info')).status, 404);
  });

  test('info never refuses a caller of the room; authenticated refuses anonymous', () => {
    assert.equal(access(privateRoom(), ROOM, anonymous, 'info').capabilities.size, 0);
    assert.equal(refusal(() => access(privateRoom(), ROOM, anonymous, 'authenticated')).status, 401);
    assert.equal(access(privateRoom(), ROOM, user, 'authenticated').role, 'none');
  });
});

describe('requireAdmin() and InstanceAdmins', () => {
  test('a session of an admin passes; other sessions 403 forbidden, tokens 403 api_token_not_allowed, nobody 401', () => {
    assert.equal(requireAdmin(user, true), user);
    assert.deepEqual(
      refusal(() => requireAdmin(user, false)),
      {
        status: 403,
        code: 'forbidden',
        message: 'Only an administrator of this Maproom may do this',
      },
    );
    // A token or nobody is refused for what it is, whatever the standing passed.
    assert.equal(refusal(() => requireAdmin(token(['read', 'write', 'upload']), true)).code, 'api_token_not_allowed');
    assert.equal(refusal(() => requireAdmin(anonymous, true)).status, 401);
  });

  test('ADMIN_EMAILS names confirmed addresses in any case; the provider claim names its users; disabled or deleted never', () => {
    const admins = new InstanceAdmins({ adminEmails: 'Boss@Example.org, other@example.org' });
    const row = {
      email: 'boss@example.org',
      email_verified_at: 1,
      provider_admin: 0,
      disabled_at: null,
      deleted_at: null,
    };
    assert.equal(admins.isAdmin(row), true);
    assert.equal(admins.isAdmin({ ...row, email_verified_at: null }), false, 'an unconfirmed address');
    assert.equal(admins.isAdmin({ ...row, email: 'someone@example.org' }), false);
    assert.equal(admins.isAdmin({ ...row, email: 'someone@example.org', provider_admin: 1 }), true);
    assert.equal(admins.isAdmin({ ...row, disabled_at: 5 }), false);
    assert.equal(admins.isAdmin({ ...row, provider_admin: 1, deleted_at: 5 }), false);
    assert.equal(new InstanceAdmins({}).isAdmin(row), false, 'nobody without ADMIN_EMAILS');
  });
});

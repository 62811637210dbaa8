import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { errors } from '../../http/schemas.js';
import type { AccountChanges } from './account-changes.service.js';
import type { PasswordReset } from './password-reset.service.js';
import {
  Accepted,
  DeleteAccountBody,
  EmailChangeBody,
  MeChangeBody,
  PasswordChangeBody,
  PasswordResetBody,
  PasswordResetConfirmBody,
} from './users.schemas.js';
import type { UsersService } from './users.service.js';

const tags = ['accounts'];
const security = [{ bearer: [] }];
const NoContent = (description: string) => Type.Null({ description });

/**
 * Recovering and changing one's own account: password reset, password and address change, the
 * language of its e-mails, deletion.
 */
export const accountRoutes: FastifyPluginAsyncTypebox<{
  users: UsersService;
  reset: PasswordReset;
  changes: AccountChanges;
  rateLimitPerMinute: number;
}> = async (app, { users, reset, changes, rateLimitPerMinute }) => {
  const rateLimit = { max: rateLimitPerMinute, timeWindow: 60_000 };
  // The routes that check the current password count per account, once the caller is known
  // (before the password is checked): guessing it from many addresses gets no more tries than
  // from one. The access check already refused a request without a valid session.
  const perAccount = {
    ...rateLimit,
    hook: 'preHandler' as const,
    keyGenerator: (request: FastifyRequest) =>
      request.caller.kind === 'user' ? `account:${request.caller.userId}` : request.ip,
  };

  app.post('/api/auth/password-reset', {
    config: { rateLimit },
    schema: {
      tags,
      summary: 'E-mail a link to choose a new password (the same 202 for any address)',
      description:
        'The link `<PUBLIC_URL>/reset-password?token=<token>` works once, for 30 minutes; its page posts the token ' +
        'to POST /api/auth/password-reset/confirm. The answer and its timing are the same whether or not the ' +
        'address has an account; accounts without a password (identity provider), disabled or deleted ones get ' +
        'no mail, nor does an address beyond PASSWORD_RESETS_PER_ADDRESS_PER_HOUR mails this hour. ' +
        '403 local_accounts_off with LOCAL_ACCOUNTS=off.',
      body: PasswordResetBody,
      response: { 202: Accepted, ...errors(400, 403, 429) },
    },
    handler: async (request, reply) => reply.status(202).send(await reset.request(request.body.email)),
  });

  app.post('/api/auth/password-reset/confirm', {
    config: { rateLimit },
    schema: {
      tags,
      summary: "Set a new password with a reset link's token; every session of the account ends",
      description:
        'Spends every reset link of the account, marks its address verified (the link proved it) and refuses ' +
        'every session issued before (401 on every instance). An unknown, used or expired token is 400 ' +
        'invalid_token, whose message says to ask for a new link. 403 local_accounts_off with LOCAL_ACCOUNTS=off.',
      body: PasswordResetConfirmBody,
      response: { 204: NoContent('Password set; sign in with it'), ...errors(400, 403, 429) },
    },
    handler: async (request, reply) => {
      await reset.confirm(request.body.token, request.body.password);
      return reply.status(204).send(null);
    },
  });

  app.post('/api/auth/password', {
    config: { access: { session: true }, rateLimit: perAccount },
    schema: {
      tags,
      security,
      summary: 'Change the password; the other sessions end, this one stays',
      description:
        'A wrong current password is 403 wrong_password (not 401: the session is fine). An account without a ' +
        'password (identity provider) is 403 forbidden.',
      body: PasswordChangeBody,
      response: { 204: NoContent('Password changed'), ...errors(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      await changes.changePassword(requireSession(request.caller), request.body);
      return reply.status(204).send(null);
    },
  });

  app.post('/api/auth/email', {
    config: { access: { session: true }, rateLimit: perAccount },
    schema: {
      tags,
      security,
      summary: 'Change the e-mail address: a link to the new address confirms it',
      description:
        'The link leads to the same page as a confirmation link (`/verify-email?token=`), whose token is posted to ' +
        'POST /api/auth/verify-email: then the account has the new address, verified (409 email_taken when ' +
        'another account took it meanwhile). The present address is told of the request, and of the change. ' +
        'A wrong password is 403 wrong_password; an account without a password (its identity provider owns the ' +
        'address) is 403 forbidden.',
      body: EmailChangeBody,
      response: { 202: Accepted, ...errors(400, 401, 403, 429) },
    },
    handler: async (request, reply) =>
      reply.status(202).send(await changes.changeEmail(requireSession(request.caller), request.body)),
  });

  app.patch('/api/auth/me', {
    config: { access: { session: true }, rateLimit },
    schema: {
      tags,
      security,
      summary: "Set the language of the signed-in user's e-mails",
      description:
        '`locale` is one of en, de, fr, it, es, ar, or null for English (any other value is 400 ' +
        'validation_error). Mails to the account are written in it from then on; GET /api/auth/me tells it.',
      body: MeChangeBody,
      response: { 204: NoContent('Language set'), ...errors(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      await users.setLocale(requireSession(request.caller), request.body.locale);
      return reply.status(204).send(null);
    },
  });

  app.delete('/api/auth/me', {
    config: { access: { session: true }, rateLimit: perAccount },
    schema: {
      tags,
      security,
      summary: 'Delete the signed-in account',
      description:
        'Confirmed by the password (403 wrong_password), or, for an account without one, by a session signed in ' +
        'within FRESH_SIGN_IN_SECONDS (403 reauthentication_required). 409 owns_rooms with `details.rooms` (ids) ' +
        'while the account owns rooms: hand each to a member (PUT /api/rooms/{roomId}/owner) or delete it. ' +
        'History entries and comments keep the name, marked as a deleted account; sessions and the room tokens ' +
        'the account created stop at once on every instance. The JSON body is required: `{}` for an account ' +
        'without a password.',
      body: DeleteAccountBody,
      response: { 204: NoContent('Account deleted'), ...errors(400, 401, 403, 409, 429) },
    },
    handler: async (request, reply) => {
      await users.deleteOwn(requireSession(request.caller), request.body?.password);
      return reply.status(204).send(null);
    },
  });
};

/**
 * Every error the service answers with: `{error: code, message, details?}` and a status.
 * Code throws one of the named errors below; the error handler renders it. A new kind of
 * refusal gets a name here, so that its code and sentence are written once.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** One field-level problem, as `details` lists them. */
export interface FieldProblem {
  field: string;
  message: string;
}

export const badRequest = (message: string, details?: unknown) =>
  new AppError(400, 'validation_error', message, details);

/** 400 validation_error naming one field: `<field> <problem>`. */
export const invalidField = (field: string, problem: string) =>
  badRequest(`${field} ${problem}`, [{ field, message: problem }] satisfies FieldProblem[]);

export const unknownField = (key: string) =>
  new AppError(400, `unknown_field:${key}`, `Field '${key}' is not accepted`);

export const emptyUpdate = () =>
  new AppError(400, 'empty_update', 'The update is empty; send at least one field to change');

export const invalidBody = (message = 'Request body is not well-formed multipart/form-data') =>
  new AppError(400, 'invalid_body', message);

export const unauthorized = (message = 'Authentication required') => new AppError(401, 'unauthorized', message);

export const invalidApiToken = () => new AppError(401, 'unauthorized', 'Invalid or expired API token');

export const invalidSession = () => unauthorized('Invalid or expired session token');

/** 401: HTTP Basic on a route that does not take it (every route but the OGC API and the tiles). */
export const basicNotAccepted = () =>
  unauthorized(
    'HTTP Basic is accepted only on the OGC API and tile routes; send the credential as "Authorization: Bearer <token>"',
  );

/** 401: an HTTP Basic header that is not `Basic <base64 of name:password>`. */
export const malformedBasic = () =>
  unauthorized('The Authorization header must be "Basic <base64 of name:password>", the password a room API token');

/** 401: the password of HTTP Basic is not a room API token (an embed key, a session or anything else). */
export const basicNeedsRoomToken = () =>
  unauthorized(
    'The password of HTTP Basic must be a room API token (mrt_…); send embed keys and sessions as "Authorization: Bearer <token>"',
  );

/** The same refusal with an HTTP authentication challenge (`WWW-Authenticate`), which clients answer with credentials. */
export const withChallenge = (error: AppError, challenge: string) =>
  new AppError(error.statusCode, error.code, error.message, error.details, {
    ...error.headers,
    'www-authenticate': challenge,
  });

export const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'E-mail or password is wrong');

export const forbidden = (message: string) => new AppError(403, 'forbidden', message);

/** 403 signup_closed: the instance's sign-up policy refuses this address; the message says why. */
export const signupClosed = (message: string) => new AppError(403, 'signup_closed', message);

/** 403 account_disabled: an admin disabled the account, so it cannot sign in. */
export const accountDisabled = () =>
  new AppError(403, 'account_disabled', 'This account is disabled; ask the administrator of this Maproom to enable it');

/** 403 session_max_age: the session was signed in more than SESSION_MAX_AGE_SECONDS ago, so it no longer renews. */
export const sessionMaxAge = () =>
  new AppError(
    403,
    'session_max_age',
    'This session was signed in too long ago to be renewed; it ends when it expires, then sign in again',
  );

/** 403 local_accounts_off: LOCAL_ACCOUNTS=off, so only the identity providers sign people in. */
export const localAccountsOff = () =>
  new AppError(
    403,
    'local_accounts_off',
    'Accounts with an e-mail and password are turned off on this Maproom; sign in with your organisation',
  );

/** 403 wrong_password: the current password given to confirm an account change is wrong (never 401: the session is fine). */
export const wrongPassword = () => new AppError(403, 'wrong_password', 'The current password is wrong');

/** 403 reauthentication_required: an account without a password confirms a deletion by a fresh sign-in. */
export const reauthenticationRequired = (minutes: number) =>
  new AppError(
    403,
    'reauthentication_required',
    `Sign in again (within the last ${minutes} minutes) to confirm deleting this account`,
  );

/** 409 owns_rooms: the account owns rooms; each must be handed to another member or deleted first. */
export const ownsRooms = (rooms: string[]) =>
  new AppError(
    409,
    'owns_rooms',
    `This account owns ${rooms.length === 1 ? 'a room' : `${rooms.length} rooms`}: hand each to another member or delete it first`,
    { rooms },
  );

/** 400 invalid_token for a password-reset link that is unknown, used or expired. */
export const invalidResetToken = () =>
  new AppError(
    400,
    'invalid_token',
    'This password-reset link is not valid (used, expired or mistyped); ask for a new one',
  );

/** 404: a room can only be handed to one of its members. */
export const newOwnerNotMember = () =>
  new AppError(404, 'not_found', 'The new owner must be a member of the room; invite them first');

/**
 * A sign-in through an identity provider that cannot finish. The callback never answers these
 * as JSON: it sends the browser back to the web app with the code (`/signed-in#error=<code>`),
 * and the page says the sentence. `code`: sign_in_expired (state unknown, used or expired),
 * sign_in_mismatch (the browser's cookie is missing or another's), provider_refused (the
 * provider answered an error), sign_in_failed (the code exchange or the ID token failed).
 */
export const signInRefused = (
  code: 'sign_in_expired' | 'sign_in_mismatch' | 'provider_refused' | 'sign_in_failed',
  message: string,
) => new AppError(400, code, message);

/** 409 email_unverified: the provider's address belongs to an account, and the provider does not vouch for it. */
export const emailUnverified = () =>
  new AppError(
    409,
    'email_unverified',
    'This e-mail address belongs to an account, and the identity provider does not vouch for it: sign in with that account instead',
  );

/** 502 provider_unavailable: the identity provider's discovery document cannot be read now. */
export const providerUnavailable = (name: string) =>
  new AppError(502, 'provider_unavailable', `${name} cannot be reached just now; try again in a moment`);

export const emailNotVerified = () =>
  new AppError(
    403,
    'email_not_verified',
    'Confirm your e-mail address first: follow the link sent to it (or ask for a new one)',
  );

export const invalidVerificationToken = () =>
  new AppError(
    400,
    'invalid_token',
    'This confirmation link is not valid (used, expired or mistyped); ask for a new one',
  );

export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, 'too_many_requests', `Too many requests; retry in ${retryAfterSeconds} s`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });

/** 503 shutting_down: a read that reached an instance while it stops; another instance answers it (src/http/stopping.ts). */
export const shuttingDown = () =>
  new AppError(503, 'shutting_down', 'This instance is shutting down; send the request again', undefined, {
    'retry-after': '1',
  });

export const tokenNotAllowed = () =>
  new AppError(
    403,
    'api_token_not_allowed',
    'API tokens cannot be used for this operation; sign in with a user session',
  );

export const tokenWrongRoom = () => new AppError(403, 'forbidden', 'API token is not scoped to this room');

export const tokenLacks = (permission: string) =>
  new AppError(403, 'forbidden', `API token lacks '${permission}' permission`);

export const invalidEmbedKey = () => new AppError(401, 'unauthorized', 'Invalid or expired embed key');

/** 403 embed_key_read_only: an embed key reads its room like a viewer and never changes anything. */
export const embedKeyReadOnly = () =>
  new AppError(403, 'embed_key_read_only', 'An embed key only reads the room; it cannot change anything');

/** 403 embed_key_not_allowed: a read an embed key does not open (history, search, comments, exports, ...). */
export const embedKeyNotAllowed = () =>
  new AppError(403, 'embed_key_not_allowed', 'An embed key cannot read this; it reads only what an embedded map shows');

/** 501 not_implemented: oEmbed answers JSON only (`format=xml` and others, as its specification says). */
export const oembedFormatNotImplemented = () => new AppError(501, 'not_implemented', 'Only format=json is answered');

/** 400 embedding_not_public: any site (`["*"]`) may frame only public content. */
export const embeddingNotPublic = () =>
  new AppError(
    400,
    'embedding_not_public',
    'Only a public room or a room with a published deck may be embedded by any site ("*"); list the sites instead',
  );

export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);

/**
 * `read()`, a read of an object's stored data (its files, its own tables) that a deletion may
 * overtake. When it fails and `exists()` then answers false, the object was deleted while it
 * was read: 404 not_found naming `what`, as a moment later. While the object still exists the
 * failure is the service's own (bytes lost, a broken file) and is thrown as it is (500, logged).
 */
export async function unlessDeletedMeanwhile<T>(
  what: string,
  exists: () => Promise<boolean>,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // A lookup that fails too (the database gone) leaves the read's own error to be seen.
    if (error instanceof AppError || (await exists().catch(() => true))) throw error;
    throw notFound(what);
  }
}

export const conflict = (code: string, message: string) => new AppError(409, code, message);

/** 409: a history entry whose object cannot be put back (a deleted layer's features, a clear). */
export const notRestorable = (message: string) => conflict('not_restorable', message);

/** 409: a restore's precondition failed: the object changed after the version the caller named. */
export const changedSince = (message: string) => conflict('changed_since', message);

/** 409: a layer whose file's ids reach 2^53 takes no new feature. */
export const featureIdsExhausted = () =>
  conflict('feature_ids_exhausted', "The layer's feature ids reach the largest one a feature can have");

/** 412: OGC API's `If-Match` named another version of a feature (the details of its version_conflict). */
export const preconditionFailed = (message: string, details: unknown) =>
  new AppError(412, 'precondition_failed', message, details);

/** 405: a collection that OGC API serves for reading only. */
export const readOnlyCollection = (collectionId: string, resource = collectionId) =>
  new AppError(
    405,
    'method_not_allowed',
    `The ${collectionId} collection is read here: change ${resource} through /api/rooms/:roomId/${resource}`,
    undefined,
    { allow: 'GET' },
  );

/** 409: a change based on version `asked` of an object that `by` has changed to `version` since. */
/** A refresh asked of a layer that is not read from an address. */
export const notRemoteLayer = () =>
  new AppError(409, 'not_remote', 'The layer is not read from an address: only a remote layer can be refreshed');

export const versionConflict = (what: string, asked: number, version: number, by: string) =>
  new AppError(409, 'version_conflict', `${what} is at version ${version} (changed by ${by}), not ${asked}`, {
    by,
    version,
  });

/** A file the service cannot read as what it claims to be. */
export const invalidFile = (message: string) => new AppError(400, 'invalid_file', message);

export const gone = (code: string, message: string) => new AppError(410, code, message);

/** 415: an uploaded file in a format the service does not take; the message lists those it takes. */
export const unsupportedFileFormat = (message: string, details?: unknown) =>
  new AppError(415, 'unsupported_format', message, details);

/** 400: an uploaded file refused for the reason `code` names (invalid_file, invalid_zip, unknown_crs, ...). */
export const fileRefused = (code: string, message: string, details?: unknown) =>
  new AppError(400, code, message, details);

/** 400 `not_points`: an upload sent `as=markers` whose file holds more than points (`what` says where). */
export const notOnlyPoints = (what: string) =>
  new AppError(
    400,
    'not_points',
    `as=markers takes only points, but ${what}: send it with as=layer (or as=auto) to make it a layer`,
  );

/** 426: a WebSocket endpoint asked with plain HTTP. */
export const upgradeRequired = () =>
  new AppError(
    426,
    'upgrade_required',
    'This is a WebSocket endpoint: connect with a WebSocket client (ws:// or wss://)',
    undefined,
    { upgrade: 'websocket' },
  );

/** A clone grant that is missing, altered, expired, or for another room than the manifest's. */
export const invalidGrant = (why: string) =>
  new AppError(403, 'invalid_grant', `The manifest's grant ${why}; fetch a new manifest from the source room`);

export const fileTooLarge = (field: string, maxBytes: number) =>
  new AppError(413, 'file_too_large', `${field} is larger than ${maxBytes} bytes`, { field, maxBytes });

export const quotaExceeded = (neededBytes: number, availableBytes: number) =>
  new AppError(413, 'quota_exceeded', "The room owner's storage quota is full", {
    neededBytes,
    availableBytes: Math.max(0, availableBytes),
  });

export const unsupportedMediaType = (expected: string) =>
  new AppError(415, 'unsupported_media_type', `Content-Type is not supported by this endpoint; send ${expected}`);

export const broadcastFailed = () =>
  new AppError(
    502,
    'broadcast_failed',
    'The change was saved and recorded in history, but could not be broadcast to open browsers',
  );

/** 404: the install has no place geocoder (GEOCODER_URL unset). */
export const geocoderNotConfigured = () =>
  new AppError(404, 'not_configured', 'No place geocoder is configured on this service (GEOCODER_URL)');

/** 502: the place geocoder failed, timed out or answered something that is not a list of places. */
export const geocoderFailed = (why: string) =>
  new AppError(502, 'geocoder_failed', `The place geocoder did not answer usefully: ${why}`);

/** 403 room_limit_reached: the user owns MAX_ROOMS_PER_USER rooms already. */
export const roomLimitReached = (maxRoomsPerUser: number) =>
  new AppError(
    403,
    'room_limit_reached',
    `You own ${maxRoomsPerUser} rooms, the most this Maproom allows; delete one or hand it to another member first`,
    { maxRoomsPerUser },
  );

/** 409 job_not_failed: only a failed job can be retried. */
export const jobNotFailed = () => conflict('job_not_failed', 'Only a failed job can be retried');

/** 409 job_ended: only a waiting or running job can be cancelled. */
export const jobEnded = () =>
  conflict('job_ended', 'Only a waiting or running job can be cancelled; this one has ended');

/** 409 admin_account: another instance admin is not disabled or deleted from the admin page. */
export const adminAccount = () =>
  conflict(
    'admin_account',
    "This account is an instance administrator: remove it from ADMIN_EMAILS or from the identity provider's admin group first",
  );

/** 409 own_account: an admin may not disable or delete their own account from the admin page. */
export const ownAccount = () =>
  conflict('own_account', 'You cannot disable or delete your own account here; ask another administrator');

/** 400 webhook_url_refused: a webhook's address is not one the service sends to (the message says why). */
export const webhookUrlRefused = (why: string) =>
  new AppError(400, 'webhook_url_refused', `The webhook's address is refused: ${why}`);

/** 409 webhook_disabled: a disabled webhook sends nothing, not even a test. */
export const webhookDisabled = () =>
  conflict('webhook_disabled', 'The webhook is disabled; enable it first (PATCH {"enabled": true})');

/** 409 too_many_webhooks: a room has at most this many webhooks. */
export const tooManyWebhooks = (max: number) =>
  conflict('too_many_webhooks', `A room has at most ${max} webhooks; remove one first`);

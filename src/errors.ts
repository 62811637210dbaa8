/** Errors the service answers with: `{error: code, message, details?}` and a status. */
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

export const badRequest = (message: string, details?: unknown) =>
  new AppError(400, 'validation_error', message, details);

export const unauthorized = (message = 'Authentication required') =>
  new AppError(401, 'unauthorized', message);

export const invalidApiToken = () =>
  new AppError(401, 'unauthorized', 'Invalid or expired API token');

export const forbidden = (message: string) => new AppError(403, 'forbidden', message);

export const tokenNotAllowed = () =>
  new AppError(
    403,
    'api_token_not_allowed',
    'API tokens cannot be used for this operation; sign in with a user session',
  );

export const tokenWrongRoom = () =>
  new AppError(403, 'forbidden', 'API token is not scoped to this room');

export const tokenLacks = (permission: string) =>
  new AppError(403, 'forbidden', `API token lacks '${permission}' permission`);

export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);

export const conflict = (code: string, message: string) => new AppError(409, code, message);

export const emptyUpdate = () => new AppError(400, 'empty_update', 'The update is empty; send at least one field to change');

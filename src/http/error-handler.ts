import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `body.defaultView.lat`-style name of the field an Ajv issue is about. */
function fieldOf(context: string | undefined, issue: ValidationIssue): string {
  const parts = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'required') parts.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') parts.push(String(issue.params.additionalProperty));
  return [context ?? 'body', ...parts].join('.');
}

function describe(context: string | undefined, issue: ValidationIssue): { field: string; message: string } {
  const field = fieldOf(context, issue);
  if (issue.keyword === 'required') return { field, message: `${field} is required` };
  if (issue.keyword === 'additionalProperties') return { field, message: `${field} is not an accepted field` };
  if (issue.keyword === 'enum') {
    const allowed = (issue.params.allowedValues as unknown[]).map(String).join(', ');
    return { field, message: `${field} must be one of: ${allowed}` };
  }
  return { field, message: `${field} ${issue.message ?? 'is invalid'}` };
}

/** Maps Fastify's own errors (bad JSON, wrong content type, big body) to stable codes. */
const FRAMEWORK_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_body'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_BAD_URL: [400, 'bad_request'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri_too_long'],
};

const FRAMEWORK_MESSAGES: Record<string, string> = {
  unsupported_media_type: 'Content-Type is not supported by this endpoint; send application/json',
  payload_too_large: 'Request body is too large',
  invalid_json: 'Request body is not valid JSON',
  invalid_body: 'Request body is malformed',
  bad_request: 'Malformed request: the URL or body cannot be decoded',
  uri_too_long: 'A path segment is too long',
};

/** Errors the router raises before any route runs (bad percent-escapes and the like). */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const [status, code] = FRAMEWORK_ERRORS[error.code] ?? [400, 'bad_request'];
  return reply.status(status).send({ error: code, message: FRAMEWORK_MESSAGES[code] ?? 'Malformed request' });
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.headers) reply.headers(error.headers);
      const body: Record<string, unknown> = { error: error.code, message: error.message };
      if (error.details !== undefined) body.details = error.details;
      return reply.status(error.statusCode).send(body);
    }
    if (error.validation) {
      const issues = error.validation as ValidationIssue[];
      // A nullable field that fails reports "must be null" and "anyOf" too; keep the real cause.
      const meaningful = issues.filter(
        (i) => i.keyword !== 'anyOf' && !(i.keyword === 'type' && i.params.type === 'null'),
      );
      const details = (meaningful.length ? meaningful : issues).map((i) => describe(error.validationContext, i));
      return reply.status(400).send({ error: 'validation_error', message: details[0]!.message, details });
    }
    const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (known || (error instanceof SyntaxError && error.statusCode === 400)) {
      const [status, code] = known ?? [400, 'invalid_json'];
      return reply.status(status).send({ error: code, message: FRAMEWORK_MESSAGES[code] });
    }
    if (error.statusCode === 429) {
      return reply.status(429).send({ error: 'too_many_requests', message: 'Too many requests; retry later' });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error }, 'client error');
      return reply.status(error.statusCode).send({ error: 'bad_request', message: 'Malformed request' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: 'internal_error', message: 'Internal server error' });
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ error: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}` }),
  );
}

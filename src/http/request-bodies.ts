import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';

const NUL_MESSAGE = 'NUL characters are not accepted';
const SURROGATE_MESSAGE = 'Text must be well-formed Unicode: a lone surrogate (\\ud800 to \\udfff) is not accepted';

/**
 * JSON is the only body type of these routes (text/plain is refused with 415), under its own
 * media type, GeoJSON's or a merge patch's. An empty JSON
 * body (as some clients send on DELETE) means no body. NUL characters are refused in bodies
 * and URLs alike: no field needs one and PostgreSQL cannot store them; so are lone surrogates
 * (escaped halves of a UTF-16 pair), which PostgreSQL's jsonb refuses to read.
 */
export function parseJsonBodies(app: FastifyInstance) {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // GeoJSON (OGC API's writes) and JSON merge patches are JSON too.
  const types = ['application/json', 'application/geo+json', 'application/merge-patch+json'];
  app.addContentTypeParser(types, { parseAs: 'string' }, (request, raw, done) => {
    const text = raw as string;
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, body) => {
      if (error) return done(error);
      if (text.includes('\\u0000') && containsNul(body)) return done(badRequest(NUL_MESSAGE));
      if (/\\u[dD][89a-fA-F]/.test(text) && !wellFormed(body)) return done(badRequest(SURROGATE_MESSAGE));
      return done(null, body);
    });
  });
}

/** Registered after the access check, so that a bad room id is named first. */
export function refuseNulInUrls(app: FastifyInstance) {
  // Not async: a promise per request for a check that never waits.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.url.includes('%00')) return done(badRequest(NUL_MESSAGE));
    done();
  });
}

/** Every text of a JSON value (keys too) is well-formed UTF-16 (PostgreSQL's jsonb refuses a lone surrogate). */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value && typeof value === 'object')
    return Object.entries(value).every(([key, v]) => !LONE_SURROGATE.test(key) && wellFormed(v));
  return true;
}
/** Read by code points (the u flag), a surrogate that is half of a pair is not one: only a lone one matches. */
const LONE_SURROGATE = /\p{Cs}/u;

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, v]) => key.includes('\0') || containsNul(v));
  }
  return false;
}

/** A route's preValidation where no body means `{}`: every field of its body is optional. */
export async function noBodyMeansEmpty(request: FastifyRequest) {
  request.body ??= {};
}

import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Response } from '../helpers.js';

/** What the errors-*.test.ts files share: what must never leak into an error, and the checks of it. */

export const STACK_TRACE = /\bat\s+\S*\s*\(?(?:\/|[A-Za-z]:\\|file:\/\/|node:)[^)\s]*:\d+/;
export const FILE_PATH = /(?:\/work\/|\/src\/|\/node_modules\/|\.ts:\d+|\.js:\d+)/;
export const SQL_TEXT =
  /\bselect\b[\s\S]*\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\S+\s+set\b|SQLITE_|sqlite|postgres|violates|constraint|syntax error at|relation "|\bkysely\b/i;

/** Asserts the documented error body: JSON `{error, message, details?}`, nothing leaking. */
export function assertErrorBody(res: Response, context = '') {
  assert.match(String(res.headers['content-type']), /^application\/json/, `${context} content type`);
  let body: any;
  assert.doesNotThrow(() => (body = JSON.parse(res.body)), `${context} body is JSON: ${res.body.slice(0, 200)}`);
  assert.equal(typeof body, 'object', context);
  assert.ok(body !== null && !Array.isArray(body), context);
  assert.equal(typeof body.error, 'string', `${context} error is a string: ${res.body.slice(0, 300)}`);
  assert.ok(body.error.length > 0, context);
  assert.equal(typeof body.message, 'string', `${context} message is a string: ${res.body.slice(0, 300)}`);
  assert.ok(body.message.length > 0, context);
  for (const key of Object.keys(body)) {
    assert.ok(
      ['error', 'message', 'details'].includes(key),
      `${context} unexpected key ${key} in ${res.body.slice(0, 160)}`,
    );
  }
  assert.doesNotMatch(res.body, STACK_TRACE, `${context} stack trace leaked: ${res.body.slice(0, 300)}`);
  assert.doesNotMatch(res.body, FILE_PATH, `${context} file path leaked: ${res.body.slice(0, 300)}`);
  assert.doesNotMatch(res.body, SQL_TEXT, `${context} SQL leaked: ${res.body.slice(0, 300)}`);
  return body;
}

/** The status and code are as expected, and the body is the documented error body with nothing leaking. */
export function assertError(res: Response, status: number, code: string, context = '') {
  assert.equal(
    res.statusCode,
    status,
    `${context} expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 300)}`,
  );
  const body = assertErrorBody(res, context);
  assert.equal(body.error, code, `${context} error code`);
  return body;
}

/** Runs every check and fails once at the end, listing each one that broke. */
export async function allOf(checks: Array<[string, () => Promise<void>]>) {
  const problems: string[] = [];
  for (const [label, check] of checks) {
    try {
      await check();
    } catch (error) {
      problems.push(`${label}: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`);
    }
  }
  assert.deepEqual(problems, [], `${problems.length} of ${checks.length} checks failed`);
}

/** A request with a raw payload and headers, as no well-behaved client would send it. */
export async function rawRequest(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  payload: string | Buffer,
  headers: Record<string, string>,
  auth?: string,
) {
  return (await app.inject({
    method,
    url,
    payload,
    headers: { ...headers, ...(auth && { authorization: `Bearer ${auth}` }) },
  })) as Response;
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** An object the service stores: it has an id (a text, or a layer feature's number). */
const isStoredObject = (value: unknown): value is Json & { id: string | number } =>
  isObject(value) && (typeof value.id === 'string' || typeof value.id === 'number');

/** The JSON body the caller sent (nothing for multipart uploads). */
function submittedBody(request: FastifyRequest): Json {
  return isObject(request.body) ? request.body : {};
}

/** `stored` cut to the shape of `sent`: the keys sent, and inside an object sent only its keys. */
function sentPart(stored: unknown, sent: unknown): unknown {
  if (!isObject(stored) || !isObject(sent)) return stored;
  const kept: Json = {};
  for (const key of Object.keys(sent)) if (key in stored) kept[key] = sentPart(stored[key], sent[key]);
  return kept;
}

/** A stored object reduced to its id and the fields the caller sent (a style's other keys left out). */
function reduce(object: Json & { id: string | number }, submitted: Json): Json {
  return { id: object.id, ...(sentPart(object, submitted) as Json) };
}

/**
 * The answer a caller that may write but not read gets: every stored object in it (any
 * object with an `id`, alone or in a list) reduced to its id and the fields the caller sent,
 * nested objects (a style, a view) to the keys sent in them.
 * Ids, keys and values made from what was sent (`markerId`, `jobId`, an upload's `exif`)
 * stay: they hold nothing the caller did not give.
 */
export function writeOnlyAnswer(payload: unknown, submitted: Json): unknown {
  if (!isObject(payload)) return payload;
  if (isStoredObject(payload)) return reduce(payload, submitted);
  const answer: Json = {};
  for (const [key, value] of Object.entries(payload)) {
    if (isStoredObject(value)) answer[key] = reduce(value, submitted);
    else if (Array.isArray(value))
      answer[key] = value.map((item) => (isStoredObject(item) ? reduce(item, submitted) : item));
    else answer[key] = value;
  }
  return answer;
}

/**
 * Callers that may write but not read (decisions: "Callers that may write but not read")
 * learn nothing they did not send. Applied to the answer of every change to a room, here,
 * so that a new route gets the rule without remembering it. The reduced answer is
 * serialised as is (the route's response schema describes the full object).
 */
export function registerWriteOnlyAnswers(app: FastifyInstance) {
  // Only routes that change a room carry the hook (a read has nothing to reduce); added to
  // each when it is registered, so that a read pays nothing for it.
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some((method) => CHANGES.has(method))) return;
    route.preSerialization = [...[route.preSerialization ?? []].flat(), reduceForWriteOnly];
  });
}

async function reduceForWriteOnly(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (!CHANGES.has(request.method) || !request.grant || request.grant.capabilities.has('read')) return payload;
  if (reply.statusCode >= 400) return payload;
  reply.serializer((reduced: unknown) => JSON.stringify(reduced));
  return writeOnlyAnswer(payload, submittedBody(request));
}

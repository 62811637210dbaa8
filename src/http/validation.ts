import type { FastifyInstance } from 'fastify';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Two validators: JSON bodies are checked strictly (no type coercion, unknown fields are
 * errors where a schema closes its properties); query strings and path parameters are
 * text, so they are coerced to the schema's types.
 */
export function registerValidators(app: FastifyInstance) {
  const make = (coerceTypes: boolean | 'array') => {
    const ajv = new Ajv({ allErrors: false, coerceTypes, useDefaults: true, removeAdditional: false, strict: false });
    addFormats.default(ajv, ['email', 'uri', 'date-time']);
    return ajv;
  };
  const strict = make(false);
  const coercing = make('array');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}

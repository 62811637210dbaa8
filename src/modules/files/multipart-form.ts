import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../errors.js';

/** What a multipart route accepts: its file parts with their size caps, and its text fields. */
export interface FormSpec {
  files: Record<string, { maxBytes: number }>;
  fields?: Record<string, { maxLength: number }>;
}

export interface FormFile {
  filename: string;
  mimetype: string;
  data: Buffer;
}

export interface Form {
  files: Map<string, FormFile>;
  fields: Map<string, string>;
}

export const fileTooLarge = (field: string, maxBytes: number) =>
  new AppError(413, 'file_too_large', `${field} is larger than ${maxBytes} bytes`, { field, maxBytes });

const notMultipart = () =>
  new AppError(415, 'unsupported_media_type', 'Content-Type is not supported by this endpoint; send multipart/form-data');

const unaccepted = (name: string) =>
  badRequest(`${name} is not an accepted field`, [{ field: name, message: `${name} is not an accepted field` }]);

const repeated = (name: string) =>
  badRequest(`${name} may be sent only once`, [{ field: name, message: `${name} may be sent only once` }]);

/**
 * Reads a multipart/form-data body into memory, part by part: a file over its cap stops the
 * read with 413 file_too_large (busboy truncates at the cap, so no more than the cap plus one
 * chunk is ever held), unknown or repeated parts are 400, a body that is not multipart is 415.
 * Requiredness and the meaning of each value are the caller's business.
 */
export async function readForm(request: FastifyRequest, spec: FormSpec): Promise<Form> {
  if (!request.isMultipart()) throw notMultipart();
  const caps = Object.values(spec.files).map((f) => f.maxBytes);
  const fieldSpecs = spec.fields ?? {};
  const form: Form = { files: new Map(), fields: new Map() };
  try {
    const parts = request.parts({
      limits: {
        fileSize: Math.max(...caps),
        // One more than accepted, so that the first stray part is named in the 400.
        files: caps.length + 1,
        fields: Object.keys(fieldSpecs).length + 1,
        fieldSize: Math.max(1, ...Object.values(fieldSpecs).map((f) => f.maxLength * 4)),
      },
    });
    for await (const part of parts) {
      const name = part.fieldname;
      if (part.type === 'file') {
        const cap = Object.hasOwn(spec.files, name) ? spec.files[name]!.maxBytes : undefined;
        if (cap === undefined) throw unaccepted(name);
        if (form.files.has(name)) throw repeated(name);
        const data = await part.toBuffer();
        // busboy cuts the stream at the largest cap and marks it truncated; the plugin does not
        // always throw for that (the last chunk may arrive before the mark), so check both.
        if (part.file.truncated || data.length > cap) throw fileTooLarge(name, cap);
        form.files.set(name, { filename: part.filename, mimetype: part.mimetype, data });
      } else {
        if (!Object.hasOwn(fieldSpecs, name)) throw unaccepted(name);
        if (form.fields.has(name)) throw repeated(name);
        const max = fieldSpecs[name]!.maxLength;
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        if (part.valueTruncated || value.length > max) {
          throw badRequest(`${name} must be at most ${max} characters`, [{ field: name, message: `at most ${max} characters` }]);
        }
        form.fields.set(name, value);
      }
    }
  } catch (error) {
    throw translate(error, spec);
  }
  return form;
}

/** The multipart plugin's and busboy's errors, as the service's documented ones. */
function translate(error: unknown, spec: FormSpec): unknown {
  if (error instanceof AppError) return error;
  const e = error as { code?: string; part?: { fieldname?: string }; message?: string };
  switch (e.code) {
    case 'FST_REQ_FILE_TOO_LARGE': {
      const field = e.part?.fieldname ?? Object.keys(spec.files)[0]!;
      return fileTooLarge(field, spec.files[field]?.maxBytes ?? Math.max(...Object.values(spec.files).map((f) => f.maxBytes)));
    }
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return notMultipart();
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return badRequest(`Too many parts; accepted: ${[...Object.keys(spec.files), ...Object.keys(spec.fields ?? {})].join(', ')}`);
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return badRequest('A form field is not acceptable');
    default:
      // busboy: "Unexpected end of form", "Malformed part header", a missing boundary...
      return new AppError(400, 'invalid_body', 'Request body is not well-formed multipart/form-data');
  }
}

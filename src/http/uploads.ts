import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, badRequest, fileTooLarge, invalidBody, invalidField, unsupportedMediaType } from '../errors.js';

/** What a multipart route accepts: its file parts with their size caps, and its text fields. */
export interface UploadSpec {
  files: Record<string, { maxBytes: number }>;
  fields?: Record<string, { maxLength: number }>;
  /** Chunks of one file (upload-chunk): what they may add up to, checked when they are assembled. */
  assembledMaxBytes?: number;
}

declare module 'fastify' {
  interface FastifySchema {
    /** A multipart route's parts and caps, shown in the OpenAPI document as the operation's `x-upload`. */
    'x-upload'?: UploadSpec;
  }
}

/**
 * The schema part of a multipart route: its content type and its spec, which the OpenAPI
 * document shows as `x-upload` (the web application reads its caps from there, so it refuses
 * an oversized file before sending it). The route receives with the same spec.
 */
export const multipart = (spec: UploadSpec) => ({ consumes: ['multipart/form-data'], 'x-upload': spec });

/** A file part, streamed to a temporary file while it arrived. */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  /** The temporary file; the caller moves it (blob store) or it is removed by `discard`. */
  path: string;
  bytes: number;
}

export interface Upload {
  files: Map<string, UploadedFile>;
  fields: Map<string, string>;
  /** Removes the temporary files that were not moved away. */
  discard(): Promise<void>;
}

/**
 * Multipart bodies are not parsed by Fastify: `receiveUpload` reads them where a route
 * wants them, after the access check, so that nobody can make the service write a file
 * before it knows who is asking.
 */
export function acceptMultipart(app: FastifyInstance) {
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
}

const unaccepted = (name: string, spec: UploadSpec) =>
  invalidField(
    name,
    `is not an accepted field (accepted: ${[...Object.keys(spec.files), ...Object.keys(spec.fields ?? {})].join(', ')})`,
  );
const repeated = (name: string) => invalidField(name, 'may be sent only once');

/**
 * Where uploads arrive: one folder of temporary files, emptied at start (a crash may leave
 * half-received files there).
 */
export class UploadReceiver {
  constructor(private readonly tmpDir: string) {}

  async clean(): Promise<void> {
    await rm(this.tmpDir, { recursive: true, force: true });
  }

  async receive(request: FastifyRequest, spec: UploadSpec): Promise<Upload> {
    await mkdir(this.tmpDir, { recursive: true });
    return receiveUpload(request, spec, this.tmpDir);
  }
}

/**
 * Receives a multipart/form-data body, streaming each file part to a temporary file under
 * `tmpDir` while counting its bytes: the moment a part passes its cap the upload stops with
 * 413 file_too_large and nothing is kept. Unknown or repeated parts are 400; a body that is
 * not multipart is 415; a malformed or truncated body is 400 invalid_body at once; a client
 * that goes away leaves nothing behind. Requiredness and meaning of values are the caller's.
 */
function receiveUpload(request: FastifyRequest, spec: UploadSpec, tmpDir: string): Promise<Upload> {
  const contentType = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) throw unsupportedMediaType('multipart/form-data');
  const fieldSpecs = spec.fields ?? {};
  const caps = Object.values(spec.files).map((f) => f.maxBytes);
  const upload: Upload = { files: new Map(), fields: new Map(), discard: () => removeAll(upload) };
  const raw = request.raw;

  return new Promise<Upload>((resolve, reject) => {
    let busboy: BusboyInstance;
    try {
      busboy = new Busboy({
        headers: request.headers as never,
        limits: {
          fileSize: Math.max(...caps) + 1,
          // One more than accepted, so that the first stray part is named in the 400.
          files: caps.length + 1,
          fields: Object.keys(fieldSpecs).length + 1,
          fieldSize: Math.max(1, ...Object.values(fieldSpecs).map((f) => f.maxLength * 4)),
          headerPairs: 100,
        },
      });
    } catch {
      reject(invalidBody('Request body is not well-formed multipart/form-data (no boundary)'));
      return;
    }
    const writes: Promise<void>[] = [];
    /** Every file stream, to be closed before its file is removed (an open in flight would recreate it). */
    const outs: WriteStream[] = [];
    const open = new Set<{ part: BusboyFileStream; out: WriteStream }>();
    let settled = false;
    let finished = false;

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      raw.unpipe(busboy);
      raw.resume(); // drain what the client still sends; the answer goes out now
      for (const { part, out } of open) {
        part.resume();
        out.destroy();
      }
      void Promise.allSettled(writes)
        .then(() =>
          Promise.all(outs.map((out) => (out.closed ? undefined : once(out, 'close').catch(() => undefined)))),
        )
        .then(() => removeAll(upload))
        .finally(() => reject(error instanceof AppError ? error : invalidBody()));
    };

    busboy.on('file', (name, part, filename, _encoding, mimetype) => {
      const cap = Object.hasOwn(spec.files, name) ? spec.files[name]!.maxBytes : undefined;
      if (settled) return part.resume();
      if (cap === undefined) return fail(unaccepted(name, spec));
      if (upload.files.has(name)) return fail(repeated(name));
      // A part sent with `filename=""` arrives without a name: it is a file with an empty name.
      const file: UploadedFile = {
        filename: filename ?? '',
        mimetype,
        path: path.join(tmpDir, randomUUID()),
        bytes: 0,
      };
      upload.files.set(name, file);
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          file.bytes += chunk.length;
          if (file.bytes > cap) return done(fileTooLarge(name, cap));
          done(null, chunk);
        },
      });
      const out = createWriteStream(file.path, { flags: 'wx' });
      outs.push(out);
      const entry = { part, out };
      open.add(entry);
      writes.push(
        pipeline(part, counter, out).then(
          () => void open.delete(entry),
          (error: unknown) => {
            open.delete(entry);
            fail(error);
          },
        ),
      );
    });

    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (settled) return;
      if (!Object.hasOwn(fieldSpecs, name)) return fail(unaccepted(name, spec));
      if (upload.fields.has(name)) return fail(repeated(name));
      const max = fieldSpecs[name]!.maxLength;
      if (valueTruncated || value.length > max) return fail(invalidField(name, `must be at most ${max} characters`));
      upload.fields.set(name, value);
    });

    const tooMany = () =>
      fail(
        badRequest(`Too many parts; accepted: ${[...Object.keys(spec.files), ...Object.keys(fieldSpecs)].join(', ')}`),
      );
    busboy.on('filesLimit', tooMany);
    busboy.on('fieldsLimit', tooMany);
    busboy.on('partsLimit', tooMany);
    busboy.on('error', () => fail(invalidBody()));
    busboy.on('finish', () => {
      finished = true;
      void Promise.all(writes).then(() => {
        if (settled) return;
        settled = true;
        resolve(upload);
      });
    });

    // A body that ends before its closing boundary is a busboy error (above); a client that
    // goes away mid-body never ends it, so its partial files are removed here.
    raw.on(
      'close',
      () => !raw.readableEnded && !finished && fail(invalidBody('The client went away during the upload')),
    );
    raw.on('error', () => fail(invalidBody()));
    raw.pipe(busboy);
  });
}

async function removeAll(upload: Upload): Promise<void> {
  await Promise.all([...upload.files.values()].map((file) => rm(file.path, { force: true })));
}

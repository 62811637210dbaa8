import { createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import createClient from 'openapi-fetch';
import type { components, paths } from '../../web/src/api/schema.js';

/** The typed client: every path, body and answer comes from the service's OpenAPI document. */
export type TypedClient = ReturnType<typeof createClient<paths>>;
export type ErrorBody = components['schemas']['ErrorBody'];

/** A refusal or failure the service answered, with its status, code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** An error of the command itself (a file that cannot be read, a job that failed): exit 1 with its message. */
export class CliError extends Error {}

/** Where the service is and the credential to send (none: an anonymous caller). */
export interface Credentials {
  url: string;
  token?: string;
}

/** A file part of a form: the bytes [start, end) of a file on disk (all of it by default), or bytes in memory. */
export interface FilePart {
  field: string;
  name: string;
  path?: string;
  start?: number;
  end?: number;
  blob?: Blob;
}

/** The service's answer to an error, as an ApiError. */
async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: Partial<ErrorBody> = {};
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // not JSON (a proxy's page): the status says it
  }
  return new ApiError(
    response.status,
    body.error ?? 'error',
    body.message ?? `${response.status} ${response.statusText}`.trim(),
    body.details,
  );
}

/** A file part's bytes; from disk, a Blob backed by the file, read as the form is sent. */
async function blobOf(part: FilePart): Promise<Blob> {
  if (part.blob) return part.blob;
  const whole = await openAsBlob(part.path!);
  return whole.slice(part.start ?? 0, part.end ?? whole.size);
}

/** Counts the bytes passing through a web stream, for a progress bar (backpressure kept). */
const webCounter = (onBytes: (bytes: number) => void) => {
  let seen = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      onBytes(seen);
      controller.enqueue(chunk);
    },
  });
};

/** The service's HTTP interface for the command line: the typed client, multipart uploads and downloads. */
export class Api {
  readonly client: TypedClient;

  constructor(readonly credentials: Credentials) {
    this.client = createClient<paths>({ baseUrl: credentials.url, headers: this.headers() });
  }

  headers(): Record<string, string> {
    return this.credentials.token ? { Authorization: `Bearer ${this.credentials.token}` } : {};
  }

  /** Awaits a typed call and returns its data, or throws the service's refusal as an ApiError. */
  async ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await call;
    if (response.ok) return data as T;
    const body = (error ?? {}) as Partial<ErrorBody>;
    throw new ApiError(
      response.status,
      body.error ?? 'error',
      body.message ?? `${response.status} ${response.statusText}`,
      body.details,
    );
  }

  /**
   * Posts a multipart form of text fields and at most one file, streamed from disk; `onBytes`
   * hears how many bytes of the form have gone. Resolves with the status and the JSON answer.
   */
  async postForm<T>(
    path: string,
    fields: Record<string, string | undefined>,
    file?: FilePart,
    onBytes?: (sent: number) => void,
  ): Promise<{ status: number; body: T }> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
    if (file) form.append(file.field, await blobOf(file), file.name);
    // The form encoded by fetch's own FormData, streamed through a counter.
    const encoded = new Response(form);
    const body = onBytes ? encoded.body!.pipeThrough(webCounter(onBytes)) : encoded.body;
    const response = await fetch(new URL(path, this.credentials.url), {
      method: 'POST',
      headers: { ...this.headers(), 'content-type': encoded.headers.get('content-type')! },
      body: body as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (!response.ok) throw await apiErrorOf(response);
    return { status: response.status, body: (await response.json()) as T };
  }

  /** Downloads an answer into `file` (written beside it, then renamed into place). */
  async download(path: string, file: string, onBytes?: (got: number, total: number) => void): Promise<number> {
    const response = await fetch(new URL(path, this.credentials.url), { headers: this.headers() });
    if (!response.ok || !response.body) throw await apiErrorOf(response);
    const total = Number(response.headers.get('content-length') ?? 0);
    const partial = `${file}.part`;
    let got = 0;
    try {
      const counted = response.body.pipeThrough(
        webCounter((n) => {
          got = n;
          onBytes?.(n, total);
        }),
      );
      await pipeline(Readable.fromWeb(counted as never), createWriteStream(partial));
      await rename(partial, file);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return got;
  }

  /** The address of a WebSocket route of the service. */
  wsUrl(path: string, query: Record<string, string | number | undefined> = {}): string {
    const url = new URL(path, this.credentials.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  assertRange,
  assertSafeKey,
  type BlobStore,
  blobMissing,
  type ByteRange,
  type GdalSource,
} from './blob-store.js';
import { S3MultipartConcat } from './s3-concat.js';

/** Where the store's objects live; credentials come from the AWS SDK's default chain. */
export interface S3Location {
  bucket: string;
  /** The S3 service's address; unset: AWS. */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Where `localFile` downloads to. */
  tmpDir: string;
}

/** Multipart uploads older than this were left by a crash; `clean` aborts them (fixed: no upload takes a day). */
export const STALE_UPLOAD_MS = 24 * 3600 * 1000;

/** What S3 answers for a key that is not there (404, `NoSuchKey` or `NotFound`). */
const isMissing = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
/** A range that starts at or past the end of the object (416). */
const isPastEnd = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416;

const rangeHeader = (range: ByteRange) => `bytes=${range.start}-${range.end}`;

/** The S3 client for a location, with what stores other than AWS need (see docs/decisions.md). */
export function s3ClientFor(location: Omit<S3Location, 'tmpDir' | 'bucket'>): S3Client {
  const config: S3ClientConfig = {
    region: location.region,
    forcePathStyle: location.forcePathStyle,
    // Checksums only where S3 requires them: stores other than AWS (Swift) refuse the newer ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(location.endpoint && { endpoint: location.endpoint }),
  };
  const client = new S3Client(config);
  // DeleteObjects must carry Content-MD5 for Swift (and older S3 servers); AWS accepts it too.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (context.commandName === 'DeleteObjectsCommand' && request.headers && typeof request.body === 'string')
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
      return next(args);
    },
    { step: 'build', name: 'deleteObjectsContentMd5' },
  );
  return client;
}

/**
 * Files as objects of one S3 bucket, under the same keys as on disk. Writes are atomic by
 * S3's own rule (an object appears whole when its upload completes); streams and files go
 * up as multipart uploads (lib-storage's `Upload`), so no file is held in memory whole.
 */
export class S3BlobStore implements BlobStore {
  private readonly bucket: string;

  constructor(
    private readonly client: S3Client,
    private readonly location: S3Location,
  ) {
    this.bucket = location.bucket;
  }

  private async upload(key: string, body: Buffer | Readable): Promise<number> {
    assertSafeKey(key);
    let bytes = 0;
    let source: Buffer | Readable = body;
    if (!Buffer.isBuffer(body)) {
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      body.on('error', (error) => counted.destroy(error));
      source = body.pipe(counted);
    } else bytes = body.length;
    await new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: source } }).done();
    return bytes;
  }

  put(key: string, data: Buffer | Readable): Promise<number> {
    return this.upload(key, data);
  }

  async putFile(key: string, file: string): Promise<number> {
    assertSafeKey(key);
    await stat(file);
    const bytes = await this.upload(key, createReadStream(file));
    await unlink(file);
    return bytes;
  }

  async get(key: string, range?: ByteRange) {
    if (range) assertRange(range);
    assertSafeKey(key);
    if (range && range.end < range.start) return this.nothingOf(key);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range && { Range: rangeHeader(range) }) }),
      );
      const whole = range ? Number(answer.ContentRange?.split('/')[1]) : Number(answer.ContentLength);
      return { stream: answer.Body as Readable, bytes: whole };
    } catch (error) {
      if (isMissing(error)) return null;
      if (isPastEnd(error)) return this.nothingOf(key);
      throw error;
    }
  }

  /** An empty stream of an object (a range at or past its end), or null when there is none. */
  private async nothingOf(key: string) {
    const bytes = await this.size(key);
    return bytes === null ? null : { stream: Readable.from([]), bytes };
  }

  async read(key: string, range?: ByteRange): Promise<Buffer | null> {
    const got = await this.get(key, range);
    if (!got) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of got.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * The object as GDAL's /vsis3/ path, read by ranges like the tiles are: the same bucket,
   * endpoint, region and addressing, and the credentials the SDK's default chain reads from
   * the environment (GDAL reads a profile or an instance role itself when they are absent).
   */
  gdalSource(key: string): GdalSource {
    assertSafeKey(key);
    const env: Record<string, string> = {
      AWS_REGION: this.location.region,
      AWS_VIRTUAL_HOSTING: this.location.forcePathStyle ? 'FALSE' : 'TRUE',
      GDAL_DISABLE_READDIR_ON_OPEN: 'EMPTY_DIR',
      // The geo engine turns GDAL's network off for files people upload (geo-engine/gdal-process.ts);
      // this path is the service's own store, which GDAL must reach.
      GDAL_HTTP_PROXY: '',
      GDAL_HTTPS_PROXY: '',
      GDAL_HTTP_TIMEOUT: '30',
      GDAL_HTTP_MAX_RETRY: '2',
      CPL_VSIL_CURL_ALLOWED_EXTENSIONS: path.extname(key) || '.tif',
    };
    if (this.location.endpoint) {
      const endpoint = new URL(this.location.endpoint);
      env.AWS_S3_ENDPOINT = endpoint.host;
      env.AWS_HTTPS = endpoint.protocol === 'https:' ? 'YES' : 'NO';
    }
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) {
      const value = process.env[name];
      if (value) env[name] = value;
    }
    return { path: `/vsis3/${this.bucket}/${key}`, env };
  }

  /** Readiness: the bucket answers (HeadBucket, no data read). */
  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  async size(key: string): Promise<number | null> {
    assertSafeKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return Number(head.ContentLength);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Lists the keys under the prefix a page (up to 1,000) at a time and deletes each page in one request. */
  async deletePrefix(prefix: string): Promise<void> {
    const folder = `${prefix.replace(/\/+$/, '')}/`;
    assertSafeKey(folder.slice(0, -1));
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: folder, ContinuationToken: token }),
      );
      const objects = (page.Contents ?? []).map(({ Key }) => ({ Key }));
      if (objects.length) {
        const answer = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }),
        );
        if (answer.Errors?.length)
          throw new Error(`Could not delete ${answer.Errors[0]!.Key}: ${answer.Errors[0]!.Message}`);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async *keys(): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const { Key } of page.Contents ?? []) if (Key) yield Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Aborts the multipart uploads a crash left unfinished (older than a day: others may be under way). */
  async clean(): Promise<void> {
    const before = Date.now() - STALE_UPLOAD_MS;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({ Bucket: this.bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
      );
      for (const upload of page.Uploads ?? []) {
        if (upload.Initiated && upload.Initiated.getTime() < before)
          await this.client.send(
            new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
  }

  /** Downloads the object to a temporary file (streamed, never whole in memory); `release` deletes it. */
  async localFile(key: string) {
    const got = await this.get(key);
    if (!got) throw blobMissing(key);
    await mkdir(this.location.tmpDir, { recursive: true });
    const file = path.join(this.location.tmpDir, `s3-${randomBytes(12).toString('hex')}${path.extname(key)}`);
    try {
      await pipeline(got.stream, createWriteStream(file));
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
    return { path: file, release: () => rm(file, { force: true }) };
  }

  async concat(key: string, parts: string[]): Promise<number> {
    assertSafeKey(key);
    parts.forEach(assertSafeKey);
    return new S3MultipartConcat(this.client, this.bucket, this).run(key, parts);
  }
}

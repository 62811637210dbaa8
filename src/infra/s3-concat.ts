import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  type CompletedPart,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { type BlobStore, blobMissing } from './blob-store.js';

/** S3's smallest part of a multipart upload, but for the last one. */
export const S3_MIN_PART_BYTES = 5 * 1024 ** 2;

/**
 * One `concat` on S3: a multipart upload of the parts in order. A part of at least 5 MiB is
 * copied inside the store (UploadPartCopy: its bytes never reach the instance); smaller ones,
 * and what tops up a part begun with them, are read and sent, at most 5 MiB held at a time.
 * Anything failing aborts the upload: the target is not written.
 */
export class S3MultipartConcat {
  private readonly done: CompletedPart[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private uploadId = '';
  private key = '';

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly store: Pick<BlobStore, 'read' | 'size' | 'put'>,
  ) {}

  async run(key: string, sources: string[]): Promise<number> {
    this.key = key;
    const sizes: number[] = [];
    for (const source of sources) {
      const size = await this.store.size(source);
      if (size === null) throw blobMissing(source);
      sizes.push(size);
    }
    const total = sizes.reduce((n, size) => n + size, 0);
    if (total === 0) return this.store.put(key, Buffer.alloc(0));
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }));
    this.uploadId = created.UploadId!;
    try {
      for (const [i, source] of sources.entries()) await this.add(source, sizes[i]!);
      if (this.pendingBytes > 0) await this.flush();
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.done },
        }),
      );
      return total;
    } catch (error) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: this.uploadId }))
        .catch(() => undefined);
      throw error;
    }
  }

  private async add(source: string, size: number) {
    let offset = 0;
    if (this.pendingBytes > 0) {
      // Top up the part under way from the start of this source.
      offset = Math.min(size, S3_MIN_PART_BYTES - this.pendingBytes);
      await this.hold(source, 0, offset);
      if (this.pendingBytes >= S3_MIN_PART_BYTES) await this.flush();
    }
    if (size - offset >= S3_MIN_PART_BYTES) await this.copy(source, offset, size);
    else if (size > offset) await this.hold(source, offset, size);
  }

  /** Keeps the bytes from `start` to before `end` for the next part sent. */
  private async hold(source: string, start: number, end: number) {
    const bytes = await this.store.read(source, { start, end: end - 1 });
    if (!bytes || bytes.length !== end - start) throw blobMissing(source);
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private async flush() {
    const PartNumber = this.done.length + 1;
    const body = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    const sent = await this.client.send(
      new UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId, PartNumber, Body: body }),
    );
    this.done.push({ PartNumber, ETag: sent.ETag });
  }

  private async copy(source: string, start: number, end: number) {
    const PartNumber = this.done.length + 1;
    const copied = await this.client.send(
      new UploadPartCopyCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        PartNumber,
        CopySource: `${this.bucket}/${source}`,
        CopySourceRange: `bytes=${start}-${end - 1}`,
      }),
    );
    this.done.push({ PartNumber, ETag: copied.CopyPartResult?.ETag });
  }
}

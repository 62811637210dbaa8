import path from 'node:path';
import { type Config, tmpDirOf } from '../config.js';
import { type BlobStore, FileBlobStore } from './blob-store.js';

/**
 * Where files live: the S3 bucket when S3_BUCKET is set, else DATA_DIR/blobs. The S3 client is
 * loaded only then (its SDK is tens of megabytes of memory a single process does not need).
 */
export async function blobStoreOf(config: Config): Promise<BlobStore> {
  if (!config.s3Bucket) return new FileBlobStore(path.join(config.dataDir, 'blobs'));
  const location = {
    bucket: config.s3Bucket,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    forcePathStyle: config.s3ForcePathStyle,
    tmpDir: tmpDirOf(config),
  };
  const { S3BlobStore, s3ClientFor } = await import('./s3-blob-store.js');
  return new S3BlobStore(s3ClientFor(location), location);
}

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { CreateBucketCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { s3ClientFor } from '../../src/infra/s3-blob-store.js';

/** A real S3 server (OpenStack Swift with s3api, see scripts/swift-s3.py) and buckets on it. */
export interface S3TestServer {
  endpoint: string;
  client: S3Client;
  /** A new, empty bucket. */
  newBucket(): Promise<string>;
  /** Every key in the bucket. */
  keysIn(bucket: string): Promise<string[]>;
  /** Stops the server when this process started it. */
  stop(): Promise<void>;
}

interface Started {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Starts Swift in a temporary folder and waits for its line of JSON (endpoint and credentials). */
async function startSwift(): Promise<Started & { stop(): Promise<void> }> {
  const folder = mkdtempSync(path.join(tmpdir(), 'maproom-swift-'));
  const script = path.join(import.meta.dirname, '../../scripts/swift-s3.py');
  const child: ChildProcess = spawn('/usr/bin/python3', [script, folder], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  const line = await Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then(() => {
      throw new Error(`Swift did not start (see ${folder}/servers.log)`);
    }),
  ]);
  return { ...(JSON.parse(line) as Started), stop };
}

/**
 * The S3 server of the tests: the one scripts/test-scale-out.sh started for the whole run
 * (S3_TEST_ENDPOINT, S3_TEST_ACCESS_KEY_ID, S3_TEST_SECRET_ACCESS_KEY), or one of this file's
 * own. Its credentials are put in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, where the
 * service's S3 client (the SDK's default chain) finds them.
 */
export async function s3TestServer(): Promise<S3TestServer> {
  const shared = process.env.S3_TEST_ENDPOINT;
  const server = shared
    ? {
        endpoint: shared,
        accessKeyId: process.env.S3_TEST_ACCESS_KEY_ID ?? 'test:tester',
        secretAccessKey: process.env.S3_TEST_SECRET_ACCESS_KEY ?? 'testing',
        stop: async () => undefined,
      }
    : await startSwift();
  process.env.AWS_ACCESS_KEY_ID = server.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = server.secretAccessKey;
  const client = s3ClientFor({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true });
  return {
    endpoint: server.endpoint,
    client,
    async newBucket() {
      const bucket = `maproom-test-${randomBytes(6).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return bucket;
    },
    async keysIn(bucket) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys;
    },
    async stop() {
      client.destroy();
      await server.stop();
    },
  };
}

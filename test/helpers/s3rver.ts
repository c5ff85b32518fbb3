import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface LocalS3 {
  endpoint: string;
  port: number;
  /** Static credentials s3rver accepts. */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  close(): Promise<void>;
}

/** A real S3-compatible server on loopback, on a free port, with its own temp dir. */
export async function startLocalS3(buckets: string[] = []): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'driftgate-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    region: 'us-east-1',
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

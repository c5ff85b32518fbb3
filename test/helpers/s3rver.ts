import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import S3rver from 's3rver';
import Account from 's3rver/lib/models/account.js';

export interface LocalS3 {
  endpoint: string;
  port: number;
  /** Static credentials s3rver accepts. */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** A key of its own, as a session token from OIDC or an assumed role: it can expire (`revoke`). */
  temporaryKey(): TemporaryKey;
  close(): Promise<void>;
}

export interface TemporaryKey {
  accessKeyId: string;
  secretAccessKey: string;
  /** From now on s3rver answers InvalidAccessKeyId to this key, as AWS does to an expired session. */
  revoke(): void;
  /** Accepted again (a refreshed session). */
  restore(): void;
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
    temporaryKey() {
      const accessKeyId = `TMP${randomBytes(8).toString('hex').toUpperCase()}`;
      const secretAccessKey = randomBytes(20).toString('hex');
      const restore = () => Account.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
      restore();
      return {
        accessKeyId,
        secretAccessKey,
        restore,
        revoke: () => Account.DUMMY_ACCOUNT.revokeAccessKey(accessKeyId),
      };
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A root module's `terraform { backend "s3" }` block that keeps the state as `key` in `bucket` on the local
 * server; credentials come from the environment or the stack's `backendConfig`.
 */
export function s3BackendHcl(endpoint: string, at: { bucket: string; key: string }): string {
  return `terraform {
  backend "s3" {
    bucket                      = "${at.bucket}"
    key                         = "${at.key}"
    region                      = "us-east-1"
    endpoints                   = { s3 = "${endpoint}" }
    use_path_style              = true
    skip_credentials_validation = true
    skip_requesting_account_id  = true
    skip_metadata_api_check     = true
    skip_region_validation      = true
  }
}
`;
}

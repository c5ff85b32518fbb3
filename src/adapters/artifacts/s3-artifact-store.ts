import { awsProxyHandler } from '../proxy/aws-request-handler.js';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type ObjectIdentifier,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { ArtifactStoreError } from '../../domain/errors.js';
import type { ArtifactStore, StoredArtifact } from '../../ports/artifacts.js';
import { checkArtifactKey, sha256Hex, toBuffer, verifySha256 } from './artifact-key.js';
import { s3StoreError } from './s3-errors.js';

export interface S3ArtifactStoreOptions {
  bucket: string;
  /** Key prefix, e.g. `driftgate/`; a missing trailing `/` is added. */
  prefix: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  /** SSE-KMS key; without it objects are encrypted with SSE-S3 (AES256). */
  kmsKeyId?: string;
  /** Static credentials; without them the SDK's default chain (env, profile, instance role) applies. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** SDK retry budget (default 3). */
  maxAttempts?: number;
  /** Per-request socket timeouts in ms (defaults: connect 5s, request 60s). */
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** The process's environment: HTTPS_PROXY / NO_PROXY. */
  env?: Record<string, string | undefined>;
  /** A ready client; the connection options above are then ignored. */
  client?: S3Client;
}

const SHA_METADATA = 'sha256';

export function createS3Client(
  options: Omit<S3ArtifactStoreOptions, 'bucket' | 'prefix' | 'kmsKeyId' | 'client'>,
): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    // Behind HTTPS_PROXY: through fetch, which goes through the proxy; otherwise the SDK's Node handler.
    requestHandler: awsProxyHandler(options.env, { requestTimeout: options.requestTimeoutMs ?? 60_000 })
      .requestHandler ?? {
      connectionTimeout: options.connectionTimeoutMs ?? 5_000,
      requestTimeout: options.requestTimeoutMs ?? 60_000,
    },
    // Integrity is our own sha256; SDK-default flexible checksums make some S3-compatible servers
    // (s3rver, older MinIO) store the aws-chunked framing as the object body.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export function createS3ArtifactStore(options: S3ArtifactStoreOptions): ArtifactStore {
  const client = options.client ?? createS3Client(options);
  const bucket = options.bucket;
  const prefix = options.prefix === '' || options.prefix.endsWith('/') ? options.prefix : `${options.prefix}/`;
  const location = `s3://${bucket}/${prefix}`;
  const objectKey = (key: string) => `${prefix}${checkArtifactKey(key)}`;
  // Every object is encrypted at rest: a saved plan holds secrets in clear.
  const encryption: Pick<PutObjectCommandInput, 'ServerSideEncryption' | 'SSEKMSKeyId'> = options.kmsKeyId
    ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: options.kmsKeyId }
    : { ServerSideEncryption: 'AES256' };

  async function put(key: string, body: Buffer | string): Promise<StoredArtifact> {
    const Key = objectKey(key);
    const data = toBuffer(body);
    const sha256 = sha256Hex(data);
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key,
          Body: data,
          ContentLength: data.length,
          ContentType: 'application/octet-stream',
          Metadata: { [SHA_METADATA]: sha256 },
          ...encryption,
        }),
      );
    } catch (err) {
      throw s3StoreError('write', `artifact ${key}`, location, err);
    }
    return { key, sha256, size: data.length };
  }

  async function get(key: string, expectedSha256?: string): Promise<Buffer> {
    const Key = objectKey(key);
    let data: Buffer;
    let recorded: string | undefined;
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
      if (!out.Body) throw new ArtifactStoreError(`cannot read artifact ${key} in ${location}: S3 returned no body`);
      data = Buffer.from(await out.Body.transformToByteArray());
      recorded = out.Metadata?.[SHA_METADATA];
    } catch (err) {
      throw s3StoreError('read', `artifact ${key}`, location, err);
    }
    return verifySha256(key, data, expectedSha256 ?? recorded ?? 'unrecorded (object has no sha256 metadata)');
  }

  async function remove(key: string): Promise<void> {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    } catch (err) {
      throw s3StoreError('delete', `artifact ${key}`, location, err);
    }
  }

  async function prune(olderThan: Date): Promise<number> {
    let removed = 0;
    let token: string | undefined;
    try {
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        const old: ObjectIdentifier[] = (page.Contents ?? [])
          .filter((o) => o.Key !== undefined && o.LastModified !== undefined && o.LastModified < olderThan)
          .map((o) => ({ Key: o.Key! }));
        // A page holds at most 1000 keys, the DeleteObjects limit.
        if (old.length > 0) removed += await deleteBatch(old);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw s3StoreError('prune', 'artifacts', location, err);
    }
    return removed;
  }

  async function deleteBatch(objects: ObjectIdentifier[]): Promise<number> {
    const out = await client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }),
    );
    const failed = out.Errors ?? [];
    if (failed.length > 0) {
      const first = failed[0]!;
      throw new ArtifactStoreError(
        `cannot prune artifacts in ${location}: ${failed.length} of ${objects.length} deletes failed (first: ${first.Key} ${first.Code ?? ''} ${first.Message ?? ''})`.trim(),
      );
    }
    return objects.length;
  }

  return { location, put, get, delete: remove, prune };
}

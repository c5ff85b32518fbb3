import { createServer } from 'node:net';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArtifactKeyError } from '../../../src/adapters/artifacts/artifact-key.js';
import { createArtifactStore } from '../../../src/adapters/artifacts/create-artifact-store.js';
import { createS3ArtifactStore, createS3Client } from '../../../src/adapters/artifacts/s3-artifact-store.js';
import { ArtifactIntegrityError, ArtifactStoreError } from '../../../src/domain/errors.js';
import { startLocalS3, type LocalS3 } from '../../helpers/s3rver.js';
import { startPagingS3 } from './s3rver-process.js';

const BUCKET = 'driftgate-test';

describe('S3 artifact store against s3rver', () => {
  let s3: LocalS3;
  let raw: S3Client;
  const storeAt = (prefix: string) =>
    createS3ArtifactStore({
      bucket: BUCKET,
      prefix,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });

  beforeAll(async () => {
    s3 = await startLocalS3([BUCKET]);
    raw = createS3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  });
  afterAll(async () => {
    raw?.destroy();
    await s3?.close();
  });

  it('round-trips text and binary bodies byte for byte, with the sha256 in the object metadata', async () => {
    const store = storeAt('driftgate');
    expect(store.location).toBe(`s3://${BUCKET}/driftgate/`);
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7 + (i >> 8)) % 256));
    const stored = await store.put('runs/r_1/plan.tfplan', binary);
    expect(stored.size).toBe(binary.length);
    expect((await store.get('runs/r_1/plan.tfplan', stored.sha256)).equals(binary)).toBe(true);
    expect((await store.get('runs/r_1/plan.tfplan')).equals(binary)).toBe(true);

    const object = await raw.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'driftgate/runs/r_1/plan.tfplan' }));
    expect(object.Metadata?.sha256).toBe(stored.sha256);
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(binary)).toBe(true);

    await store.put('runs/r_1/plan.json', '{"secret":"ünïcode"}');
    expect((await store.get('runs/r_1/plan.json')).toString('utf8')).toBe('{"secret":"ünïcode"}');
    await store.delete('runs/r_1/plan.json');
    await expect(store.get('runs/r_1/plan.json')).rejects.toThrow(
      /cannot read artifact runs\/r_1\/plan.json in s3:\/\/driftgate-test\/driftgate\/: S3 answered 404/,
    );
  });

  it('asks for server-side encryption on every put: AES256 by default, aws:kms with the configured key', async () => {
    const seen: Record<string, string | undefined>[] = [];
    const client = createS3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    client.middlewareStack.add(
      (next) => async (args) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        seen.push({
          sse: headers['x-amz-server-side-encryption'],
          kms: headers['x-amz-server-side-encryption-aws-kms-key-id'],
        });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordEncryptionHeaders' },
    );
    try {
      const options = { bucket: BUCKET, prefix: 'sse/', region: s3.region, client };
      await createS3ArtifactStore(options).put('a', 'x');
      await createS3ArtifactStore({ ...options, kmsKeyId: 'arn:aws:kms:us-east-1:111122223333:key/abc' }).put('b', 'y');
    } finally {
      client.destroy();
    }
    expect(seen).toEqual([
      { sse: 'AES256', kms: undefined },
      { sse: 'aws:kms', kms: 'arn:aws:kms:us-east-1:111122223333:key/abc' },
    ]);
  });

  it('refuses an object overwritten behind its back', async () => {
    const store = storeAt('tamper/');
    const { sha256 } = await store.put('runs/r_1/plan.tfplan', 'the reviewed plan');
    await raw.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'tamper/runs/r_1/plan.tfplan',
        Body: 'a different plan',
        Metadata: { sha256 },
      }),
    );
    const err = await store.get('runs/r_1/plan.tfplan', sha256).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactIntegrityError);
    expect((err as ArtifactIntegrityError).expected).toBe(sha256);
    await expect(store.get('runs/r_1/plan.tfplan')).rejects.toBeInstanceOf(ArtifactIntegrityError);
  });

  it('rejects traversal keys before any request', async () => {
    await expect(storeAt('p/').put('../other-prefix/x', 'x')).rejects.toBeInstanceOf(InvalidArtifactKeyError);
  });

  it('prunes objects older than the cutoff under its own prefix only', async () => {
    const store = storeAt('prune/');
    const other = storeAt('keep/');
    await other.put('runs/r_0/plan.tfplan', 'not ours');
    for (let i = 0; i < 3; i++) await store.put(`runs/r_${i}/plan.tfplan`, `plan ${i}`);
    // s3rver stamps LastModified with its own clock: a cutoff in the past keeps all, in the future drops all.
    expect(await store.prune(new Date(Date.now() - 3_600_000))).toBe(0);
    expect(await store.prune(new Date(Date.now() + 3_600_000))).toBe(3);
    const left = await raw.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect((left.Contents ?? []).map((o) => o.Key).filter((k) => k?.startsWith('prune/'))).toEqual([]);
    expect((await other.get('runs/r_0/plan.tfplan')).toString()).toBe('not ours');
  });

  it('is chosen by the factory for s3 config, taking static keys from the injected env', async () => {
    const store = await createArtifactStore(
      {
        type: 's3',
        bucket: BUCKET,
        prefix: 'factory/',
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: true,
      },
      { dataDir: '/unused', env: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey } },
    );
    expect(store.location).toBe(`s3://${BUCKET}/factory/`);
    const { sha256 } = await store.put('a.txt', 'x');
    expect((await store.get('a.txt', sha256)).toString()).toBe('x');
  });
});

describe('S3 artifact store with an unreachable endpoint', () => {
  it('fails with ArtifactStoreError naming the location, not a raw SDK error', async () => {
    const port = await closedPort();
    const store = createS3ArtifactStore({
      bucket: 'nowhere',
      prefix: 'driftgate/',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'do-not-print-this-secret' },
      maxAttempts: 1,
      connectionTimeoutMs: 1000,
      requestTimeoutMs: 1000,
    });
    for (const attempt of [() => store.put('a', 'x'), () => store.get('a'), () => store.prune(new Date())]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ArtifactStoreError);
      expect((err as Error).message).toContain('s3://nowhere/driftgate/');
      expect((err as Error).message).toContain('endpoint unreachable (ECONNREFUSED)');
      expect((err as Error).message).not.toContain('do-not-print-this-secret');
    }
  });
});

/** A port that was free a moment ago and has nothing listening now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** The same client, with ListObjectsV2 limited to `size` keys a page so pagination is exercised. */
function withPageSize(client: S3Client, size: number): S3Client {
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return (command: unknown) => {
        if (command instanceof ListObjectsV2Command) command.input.MaxKeys = size;
        return send(command);
      };
    },
  });
}

describe('S3 artifact store prune across list pages', () => {
  let server: Awaited<ReturnType<typeof startPagingS3>>;
  beforeAll(async () => {
    server = await startPagingS3(BUCKET);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('follows continuation tokens until every old object is deleted', async () => {
    const connection = {
      region: 'us-east-1',
      endpoint: server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    };
    const client = createS3Client(connection);
    try {
      const store = createS3ArtifactStore({
        bucket: BUCKET,
        prefix: 'paged/',
        ...connection,
        client: withPageSize(client, 5),
      });
      for (let i = 0; i < 12; i++) await store.put(`runs/r_${i}/plan.tfplan`, `plan ${i}`);
      expect(await store.prune(new Date(Date.now() + 3_600_000))).toBe(12);
      const left = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'paged/' }));
      expect(left.KeyCount ?? 0).toBe(0);
    } finally {
      client.destroy();
    }
  });
});

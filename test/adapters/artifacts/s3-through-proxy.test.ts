import { getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifactStore } from '../../../src/adapters/artifacts/create-artifact-store.js';
import { useProxyFromEnv } from '../../../src/adapters/proxy/env-proxy.js';
import { ArtifactsConfig } from '../../../src/config/schema.js';
import { type CountingProxy, startCountingProxy } from '../../helpers/counting-proxy.js';
import { type LocalS3, startLocalS3 } from '../../helpers/s3rver.js';

/**
 * The artifact bucket behind an egress proxy: with HTTP(S)_PROXY set (the CLI's entry point installs it
 * as this test does), S3 requests go through the proxy, and around it to a NO_PROXY host. A real CONNECT
 * proxy on loopback and s3rver.
 */
let s3: LocalS3;
let proxy: CountingProxy;
const original = getGlobalDispatcher();

beforeAll(async () => {
  s3 = await startLocalS3(['artifacts']);
  proxy = await startCountingProxy();
});
afterAll(async () => {
  setGlobalDispatcher(original);
  await proxy.close();
  await s3.close();
});

async function roundTrip(env: Record<string, string>): Promise<string> {
  useProxyFromEnv(env);
  const config = ArtifactsConfig.parse({
    type: 's3',
    bucket: 'artifacts',
    prefix: 'p/',
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
  });
  const store = await createArtifactStore(config, {
    dataDir: '/nonexistent',
    env: { ...env, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey },
  });
  const stored = await store.put('r_1/plan.json', '{"plan":1}');
  return (await store.get(stored.key, stored.sha256)).toString();
}

describe('S3 artifacts through a proxy', () => {
  it('go through HTTPS_PROXY/HTTP_PROXY when set, and around it to a NO_PROXY host', async () => {
    const target = `CONNECT 127.0.0.1:${s3.port}`;
    // Failed before: the SDK's Node handler reads no proxy variable.
    expect(await roundTrip({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url })).toBe('{"plan":1}');
    const through = proxy.seen.filter((line) => line === target).length;
    expect(through).toBeGreaterThan(0);
    expect(await roundTrip({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' })).toBe('{"plan":1}');
    expect(proxy.seen.filter((line) => line === target).length).toBe(through);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/app/serve.js';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/domain/errors.js';
import { metricsAddressFrom } from '../../src/http/metrics-address.js';
import { configYaml } from '../helpers/config-builder.js';

let running: RunningServe | undefined;
let dir: string | undefined;
afterEach(async () => {
  await running?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  running = undefined;
  dir = undefined;
});

async function serve(env: Record<string, string>): Promise<RunningServe> {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-metrics-'));
  const config = await parseConfig(
    configYaml({ dataDir: join(dir, 'data'), log: { level: 'silent' }, stacks: [{ name: 'app', dir: 'app' }] }),
    {
      baseDir: dir,
      env: {},
    },
  );
  running = await startServe(config, { env: { PATH: process.env.PATH, ...env }, port: 0, host: '127.0.0.1' });
  return running;
}

describe('METRICS_ADDRESS', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    [':9464', { host: '0.0.0.0', port: 9464 }],
    ['metrics.internal:0', { host: 'metrics.internal', port: 0 }],
  ])('reads %s', (raw, address) => {
    expect(metricsAddressFrom({ METRICS_ADDRESS: raw })).toEqual(address);
  });

  it('is off when unset or empty', () => {
    expect(metricsAddressFrom({})).toBeUndefined();
    expect(metricsAddressFrom({ METRICS_ADDRESS: ' ' })).toBeUndefined();
  });

  it.each(['9464', 'localhost', '127.0.0.1:99999', '127.0.0.1:port', '::1:9464'])(
    'refuses %s, naming the variable',
    (raw) => {
      expect(() => metricsAddressFrom({ METRICS_ADDRESS: raw })).toThrow(ConfigError);
      expect(() => metricsAddressFrom({ METRICS_ADDRESS: raw })).toThrow(
        /METRICS_ADDRESS: ".*" is not an address to listen on/,
      );
    },
  );

  it('serves /metrics on its own address only, and health on both', async () => {
    const served = await serve({ METRICS_ADDRESS: '127.0.0.1:0' });
    const main = `http://127.0.0.1:${served.health.port}`;
    const metrics = `http://127.0.0.1:${served.metricsServer!.port}`;
    expect(served.metricsServer!.port).not.toBe(served.health.port);
    expect((await fetch(`${main}/metrics`)).status).toBe(404);
    const scraped = await fetch(`${metrics}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('driftgate_drifted_stacks');
    expect((await fetch(`${metrics}/healthz`)).status).toBe(200);
    expect((await fetch(`${main}/healthz`)).status).toBe(200);
  });

  it('keeps /metrics on the main port without it', async () => {
    const served = await serve({});
    expect(served.metricsServer).toBeUndefined();
    expect((await fetch(`http://127.0.0.1:${served.health.port}/metrics`)).status).toBe(200);
  });

  it('stops serve at start on a bad value, naming the variable', async () => {
    await expect(serve({ METRICS_ADDRESS: 'localhost' })).rejects.toThrow(/METRICS_ADDRESS/);
    expect(running).toBeUndefined();
  });
});

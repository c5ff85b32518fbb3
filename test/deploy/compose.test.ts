import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ownSecretNames } from '../../src/app/context.js';
import type { DriftgateConfig } from '../../src/config/schema.js';
import { metricsAddressFrom } from '../../src/http/metrics-address.js';
import { COMPOSE_FILE, flagValue, ROOT } from './deploy-files.js';
import { DEPLOY_ENV, loadDeployedConfig, stackPools, validateDeployedConfig } from './deploy-config.js';
import { CLOUD_CREDENTIAL } from './pod-secrets.js';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string | null> | string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  restart?: string;
  ports?: (string | { target: number; host_ip?: string })[];
}

/** docker compose reads YAML 1.1 merge keys (`<<: *driftgate`); so does this. */
const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
const services = Object.entries(compose.services);
const DRIFTGATE_IMAGE = compose.services['control-plane']?.image;

/**
 * The driftgate command line a service runs: its `command` under the image's entrypoint, or what follows
 * `driftgate.js` in a `sh -c` line (a worker reads its token from its volume first).
 */
function argv(service: ComposeService): string[] {
  if (!service.entrypoint) return Array.isArray(service.command) ? service.command : [];
  const line = Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '');
  const after = line.split('driftgate.js ')[1];
  return after ? after.trim().split(/\s+/) : [];
}

/** The long-running driftgate processes (the one-shots, `stacks` and `pool-tokens`, do their work and exit). */
const driftgate = services.filter(
  ([, s]) => s.image === DRIFTGATE_IMAGE && (s.restart ?? 'no') !== 'no' && argv(s).length > 0,
);
const workers = driftgate.filter(([, s]) => argv(s)[0] === 'worker');
const controlPlanes = driftgate.filter(([, s]) => argv(s)[0] === 'serve');

function environment(service: ComposeService): Map<string, string | null> {
  const env = service.environment ?? {};
  if (Array.isArray(env))
    return new Map(env.map((e) => [e.split('=')[0]!, e.includes('=') ? e.slice(e.indexOf('=') + 1) : null]));
  return new Map(Object.entries(env));
}

/** `HOST:CONTAINER[:ro]` bind mounts and named volumes, by where they appear in the container. */
function mounts(service: ComposeService): { source: string; target: string; readOnly: boolean }[] {
  return (service.volumes ?? []).map((v) => {
    const [source, target, mode] = v.split(':');
    return { source: source!, target: target!, readOnly: mode === 'ro' };
  });
}

/** The container ports a service publishes on the host (`[IP:]HOST:CONTAINER[/proto]`, `CONTAINER`, long syntax). */
function published(service: ComposeService): { hostIp: string | undefined; port: number }[] {
  return (service.ports ?? []).map((p) => {
    if (typeof p !== 'string') return { hostIp: p.host_ip, port: p.target };
    const parts = p.replace(/\/\w+$/, '').split(':');
    return { hostIp: parts.length === 3 ? parts[0] : undefined, port: Number(parts.at(-1)) };
  });
}

const configPath = flagValue(compose.services['control-plane']!.command as string[], '--config')!;
const configMount = mounts(compose.services['control-plane']!).find((m) => configPath.startsWith(`${m.target}/`))!;
const configFile = resolve(ROOT, configMount.source, configPath.slice(configMount.target.length + 1));
const configDocument = parse(readFileSync(configFile, 'utf8')) as Record<string, unknown> & {
  stacks: { dir: string }[];
};

let config: DriftgateConfig;
beforeAll(async () => {
  config = await loadDeployedConfig(configDocument, ROOT);
});

describe('docker-compose.yml', () => {
  it('has postgres, an S3-compatible store, a control plane and a worker per pool', () => {
    expect(compose.services.postgres?.image).toMatch(/^postgres:\d+\.\d+/);
    expect(compose.services.minio?.image).toMatch(/^minio\/minio:RELEASE\./);
    expect(controlPlanes.map(([name]) => name)).toEqual(['control-plane']);
    expect(workers.map(([, s]) => flagValue(argv(s), '--pool')).sort()).toEqual(['nonprod', 'prod']);
  });

  it('pins every image it pulls by tag, never latest', () => {
    for (const [name, s] of services.filter(([, s]) => !s.build)) {
      expect(s.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(s.image, name).not.toMatch(/:latest$/);
    }
  });

  it('names only services that exist in depends_on, waiting on a healthcheck or a finished one-shot', () => {
    for (const [name, s] of services) {
      const deps = s.depends_on ?? {};
      expect(Array.isArray(deps), `${name}: depends_on with conditions`).toBe(false);
      for (const [dep, { condition }] of Object.entries(deps as Record<string, { condition: string }>)) {
        const target = compose.services[dep];
        expect(target, `${name} depends on ${dep}`).toBeDefined();
        expect(['service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') expect(target!.healthcheck, `${dep} has a healthcheck`).toBeDefined();
        // A one-shot that restarts never completes.
        if (condition === 'service_completed_successfully') expect(target!.restart ?? 'no').toBe('no');
      }
    }
  });

  it('gives every long-running service a healthcheck', () => {
    const longRunning = services.filter(([, s]) => (s.restart ?? 'no') !== 'no' || s.image?.startsWith('postgres'));
    expect(longRunning.length).toBeGreaterThan(3);
    for (const [name, s] of [...longRunning, ['minio', compose.services.minio!] as const]) {
      expect(s.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
    // The control plane is healthy when ready (/readyz: Postgres, and Slack when it is on); a worker when live.
    expect(compose.services['control-plane']!.healthcheck!.test.join(' ')).toContain('/readyz');
    for (const [, w] of workers) expect(w.healthcheck!.test.join(' ')).toContain('/healthz');
  });

  it('starts every driftgate process with the config it mounts, a file in the repository', () => {
    expect(existsSync(configFile)).toBe(true);
    expect(configFile).toBe(join(ROOT, 'deploy/compose/driftgate.yml'));
    for (const [name, s] of driftgate) {
      expect(flagValue(argv(s), '--config'), name).toBe(configPath);
      expect(mounts(s), name).toContainEqual(configMount);
    }
  });

  it("mounts a config that driftgate's loader accepts, whose stacks are the examples the image ships", async () => {
    // The `stacks` service copies the image's /app/examples/environments (the Dockerfile's COPY examples)
    // to /srv/stacks: the same dirs are checked here in the repository.
    expect(compose.services.stacks!.command!.toString()).toContain('/app/examples/environments/. /srv/stacks/');
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(
      /^WORKDIR \/app\n(?:.*\n)*?COPY examples \.\/examples$/m,
    );
    const local = structuredClone(configDocument);
    for (const stack of local.stacks) {
      expect(stack.dir).toMatch(/^\/srv\/stacks\//);
      stack.dir = stack.dir.replace(/^\/srv\/stacks\//, join(ROOT, 'examples/environments/'));
    }
    const result = await validateDeployedConfig(local, { baseDir: ROOT, env: DEPLOY_ENV });
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.config!.stacks).toHaveLength(9);
    expect(configDocument.store).toEqual({ type: 'postgres', url: '${DATABASE_URL}' });
    expect(configDocument.runners).toEqual({ type: 'workers', agent: { port: 3001, host: '0.0.0.0' } });
    const pools = new Set(stackPools(configDocument).values());
    expect([...pools].sort()).toEqual(workers.map(([, s]) => flagValue(argv(s), '--pool')).sort());
  });

  it('points the artifact store at the MinIO service, with its keys, and creates the bucket', () => {
    expect(config.artifacts).toMatchObject({ type: 's3', endpoint: 'http://minio:9000', forcePathStyle: true });
    const bucket = config.artifacts.type === 's3' ? config.artifacts.bucket : '';
    const made = /\bmc mb --ignore-existing trial\/(\S+)/.exec(compose.services['minio-bucket']!.command!.toString());
    expect(made?.[1]).toBe(bucket);
    const minio = environment(compose.services.minio!);
    for (const [name, s] of controlPlanes) {
      const env = environment(s);
      expect(env.get('AWS_ACCESS_KEY_ID'), name).toBe(minio.get('MINIO_ROOT_USER'));
      expect(env.get('AWS_SECRET_ACCESS_KEY'), name).toBe(minio.get('MINIO_ROOT_PASSWORD'));
    }
  });

  it('gives the database to the control plane and the token maker, the one postgres serves, and none to a worker', () => {
    const pg = environment(compose.services.postgres!);
    const url = `postgres://${pg.get('POSTGRES_USER')}:${pg.get('POSTGRES_PASSWORD')}@postgres:5432/${pg.get('POSTGRES_DB')}`;
    for (const [name, s] of [...controlPlanes, ['pool-tokens', compose.services['pool-tokens']!] as const])
      expect(environment(s).get('DATABASE_URL'), name).toBe(url);
    for (const [name, w] of workers)
      for (const variable of environment(w).keys())
        expect(variable, `${name} holds ${variable}`).not.toMatch(/^(DATABASE_|AWS_|PG)/);
  });

  it('runs workers on the agent API: the control plane’s agent port, unpublished, and only their own pool’s token', () => {
    const plane = compose.services['control-plane']!;
    const port = (configDocument.runners as { agent: { port: number } }).agent.port;
    expect((plane as { expose?: string[] }).expose).toContain(String(port));
    expect(published(plane).map((p) => p.port)).not.toContain(port);
    const maker = compose.services['pool-tokens']!;
    const made = String(maker.command);
    for (const [name, w] of workers) {
      const pool = flagValue(argv(w), '--pool')!;
      expect(environment(w).get('DRIFTGATE_CONTROL_PLANE_URL'), name).toBe(`http://control-plane:${port}`);
      expect(String(w.command), name).toContain('DRIFTGATE_POOL_TOKEN="$$(cat /run/driftgate/token)"');
      // Its pool's token volume, read-only, where the token maker writes that pool's token; no other pool's.
      const tokenMounts = mounts(w).filter((m) => m.source.startsWith('token-'));
      expect(tokenMounts, name).toEqual([{ source: `token-${pool}`, target: '/run/driftgate', readOnly: true }]);
      expect(mounts(maker)).toContainEqual({ source: `token-${pool}`, target: `/tokens/${pool}`, readOnly: false });
      expect(made).toContain(`pool token create $$pool`);
      expect(made).toMatch(new RegExp(`for pool in [a-z ]*\\b${pool}\\b`));
      expect(w.depends_on).toMatchObject({ 'pool-tokens': { condition: 'service_completed_successfully' } });
    }
  });

  it('keeps /metrics off every port it publishes: on a port of its own, not published', () => {
    const publishing = driftgate.filter(([, s]) => published(s).length > 0);
    expect(publishing.map(([name]) => name)).toContain('control-plane');
    for (const [name, s] of publishing) {
      const env = Object.fromEntries([...environment(s)].map(([k, v]) => [k, v ?? undefined]));
      const metrics = metricsAddressFrom(env);
      expect(metrics, `${name} publishes a port: /metrics must listen apart (METRICS_ADDRESS)`).toBeDefined();
      expect(metrics!.port, name).not.toBe(Number(env.PORT ?? 3000));
      for (const p of published(s))
        expect(p.port, `${name} publishes /metrics' port ${metrics!.port}`).not.toBe(metrics!.port);
    }
  });

  it('keeps Slack, GitHub and PagerDuty secrets away from the workers', () => {
    const forbidden = ownSecretNames(config);
    expect(forbidden).toEqual(expect.arrayContaining(['SLACK_BOT_TOKEN', 'GITHUB_TOKEN']));
    for (const [name, w] of workers) {
      for (const variable of environment(w).keys()) {
        expect(forbidden, `${name}: ${variable}`).not.toContain(variable);
        expect(variable, name).not.toMatch(/^(SLACK_|GITHUB_|PAGERDUTY_)/);
      }
    }
  });

  it('gives the control plane no cloud credential but the artifact store’s keys', () => {
    const minio = environment(compose.services.minio!);
    const artifactKeys = new Set([minio.get('MINIO_ROOT_USER'), minio.get('MINIO_ROOT_PASSWORD')]);
    for (const [name, value] of environment(compose.services['control-plane']!)) {
      if (CLOUD_CREDENTIAL.test(name)) expect(artifactKeys, name).toContain(value);
    }
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ownSecretNames } from '../../src/app/context.js';
import type { DriftgateConfig } from '../../src/config/schema.js';
import { byKind, flagValue, loadManifests, type Manifest, named, ROOT, selects } from './deploy-files.js';
import { DEPLOY_ENV, loadDeployedConfig, stackPools, validateDeployedConfig } from './deploy-config.js';
import { CLOUD_CREDENTIAL, podEnv, podSecretNames, secretKeys } from './pod-secrets.js';

const manifests = loadManifests();
const deployments = byKind(manifests, 'Deployment');
const controlPlane = named(manifests, 'Deployment', 'driftgate-control-plane');
const workers = deployments.filter((d) => d.spec.template.spec.containers[0].args[0] === 'worker');
const configMap = named(manifests, 'ConfigMap', 'driftgate-config');
const document = parse(configMap.data['driftgate.yml']) as Record<string, unknown>;
const podSpec = (d: Manifest) => d.spec.template.spec;
const container = (d: Manifest) => podSpec(d).containers[0];

/** The uid the Dockerfile gives the driftgate user: the pods must run as that one. */
const imageUid = Number(/useradd [^\n]*--uid (\d+)/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1]);

let config: DriftgateConfig;
beforeAll(async () => {
  config = await loadDeployedConfig(document, ROOT);
});

describe('deploy/kubernetes: the ConfigMap', () => {
  it("holds a driftgate.yml that driftgate's own loader accepts, with no warning", async () => {
    const result = await validateDeployedConfig(document, { baseDir: ROOT, env: DEPLOY_ENV });
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.config?.stacks.map((s) => s.name)).toHaveLength(9);
  });

  it('names the shared Postgres store, the workers runner and an S3 artifact bucket', () => {
    expect(document.store).toEqual({ type: 'postgres', url: '${DATABASE_URL}' });
    expect(document.runners).toEqual({ type: 'workers' });
    expect(config.artifacts.type).toBe('s3');
  });

  it('is the file the pods are started with, mounted read-only', () => {
    for (const d of deployments) {
      const args: string[] = container(d).args;
      const path = flagValue(args, '--config');
      const mount = container(d).volumeMounts.find((m: { mountPath: string }) => path?.startsWith(`${m.mountPath}/`));
      expect(mount, d.metadata.name).toMatchObject({ readOnly: true });
      const volume = podSpec(d).volumes.find((v: { name: string }) => v.name === mount.name);
      expect(volume.configMap.name, d.metadata.name).toBe(configMap.metadata.name);
      expect(Object.keys(configMap.data)).toContain(path!.slice(mount.mountPath.length + 1));
    }
  });
});

describe('deploy/kubernetes: the control plane', () => {
  it('runs `serve` in 2 replicas, rolling with none unavailable', () => {
    expect(container(controlPlane).args[0]).toBe('serve');
    expect(controlPlane.spec.replicas).toBe(2);
    expect(controlPlane.spec.strategy).toMatchObject({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } });
  });

  it('is ready on /readyz, live on /healthz and started on /healthz, on the port it listens on', () => {
    const c = container(controlPlane);
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      expect(containerPortOf(controlPlane, probe.httpGet.port)).toBe(listenPort(controlPlane));
    }
  });

  it('gets no cloud credentials: no such variable, no pool role on its ServiceAccount', () => {
    const env = podEnv(podSpec(controlPlane), manifests);
    expect(env.filter((e) => CLOUD_CREDENTIAL.test(e.name)).map((e) => e.name)).toEqual([]);
    const own = named(manifests, 'ServiceAccount', podSpec(controlPlane).serviceAccountName);
    const poolRoles = workers.flatMap((w) =>
      Object.values(named(manifests, 'ServiceAccount', podSpec(w).serviceAccountName).metadata.annotations ?? {}),
    );
    expect(poolRoles.length).toBeGreaterThan(0);
    for (const role of Object.values(own.metadata.annotations ?? {})) expect(poolRoles).not.toContain(role);
  });

  it('reads every secret the config names, from keys its Secrets hold (or may leave out, when optional)', () => {
    const env = podEnv(podSpec(controlPlane), manifests);
    const names = env.map((e) => e.name);
    for (const name of ['DATABASE_URL', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', ...routingKeyEnvs()]) {
      expect(names).toContain(name);
    }
    for (const e of env.filter((e) => e.secret && !e.secret.optional)) {
      const secret = named(manifests, 'Secret', e.secret!.name);
      expect(Object.keys(secret.stringData ?? {}), `${e.name} from ${e.secret!.name}`).toContain(e.secret!.key);
    }
  });

  it('is reached through the Service, which selects it and targets its http port', () => {
    const service = named(manifests, 'Service', 'driftgate');
    expect(selects(service.spec.selector, controlPlane.spec.template.metadata.labels)).toBe(true);
    for (const worker of workers)
      expect(selects(service.spec.selector, worker.spec.template.metadata.labels)).toBe(false);
    for (const port of service.spec.ports) {
      expect(containerPortOf(controlPlane, port.targetPort)).toBe(listenPort(controlPlane));
    }
  });

  it('keeps one replica through a drain: the PodDisruptionBudget selects the control plane, and only it', () => {
    const [pdb, ...more] = byKind(manifests, 'PodDisruptionBudget');
    expect(more).toEqual([]);
    expect(pdb!.spec.minAvailable).toBe(1);
    expect(selects(pdb!.spec.selector.matchLabels, controlPlane.spec.template.metadata.labels)).toBe(true);
    for (const worker of workers) {
      expect(selects(pdb!.spec.selector.matchLabels, worker.spec.template.metadata.labels)).toBe(false);
    }
  });

  it('serves /metrics apart from the public port, and the Service does not expose it', () => {
    const env = podEnv(podSpec(controlPlane), manifests);
    const metrics = env.find((e) => e.name === 'METRICS_ADDRESS')?.value;
    const port = Number(/:(\d+)$/.exec(metrics ?? '')?.[1]);
    expect(containerPortOf(controlPlane, 'metrics')).toBe(port);
    expect(port).not.toBe(listenPort(controlPlane));
    const service = named(manifests, 'Service', 'driftgate');
    for (const p of service.spec.ports) expect(containerPortOf(controlPlane, p.targetPort)).not.toBe(port);
  });
});

describe('deploy/kubernetes: the workers', () => {
  it("run one Deployment per pool the config's stacks name, `worker --pool <pool>`", () => {
    const pools = new Set(stackPools(document as never).values());
    expect([...pools].sort()).toEqual(['nonprod', 'prod']);
    const started = workers.map((w) => flagValue(container(w).args, '--pool'));
    expect([...started].sort()).toEqual([...pools].sort());
    for (const w of workers) {
      expect(w.spec.template.metadata.labels['driftgate/pool']).toBe(flagValue(container(w).args, '--pool'));
      expect(Number(flagValue(container(w).args, '--concurrency'))).toBeGreaterThan(0);
    }
  });

  it('each pool has a ServiceAccount of its own, with its cloud identity', () => {
    const accounts = workers.map((w) => podSpec(w).serviceAccountName as string);
    expect(new Set(accounts).size).toBe(workers.length);
    expect(accounts).not.toContain(podSpec(controlPlane).serviceAccountName);
    const roles = accounts.map((name) => named(manifests, 'ServiceAccount', name).metadata.annotations ?? {});
    for (const annotations of roles) {
      expect(Object.keys(annotations).sort()).toEqual(['eks.amazonaws.com/role-arn', 'iam.gke.io/gcp-service-account']);
    }
    for (const key of ['eks.amazonaws.com/role-arn', 'iam.gke.io/gcp-service-account']) {
      expect(new Set(roles.map((r) => r[key])).size, key).toBe(workers.length);
    }
  });

  it("never see a Slack, GitHub or PagerDuty secret, nor the control plane's Secret", () => {
    const gitTokens = new Set(config.stacks.flatMap((s) => (s.git?.tokenEnv ? [s.git.tokenEnv] : [])));
    // The bot's own secrets as driftgate itself counts them, less the read-only Git token checkouts need.
    const forbidden = ownSecretNames(config).filter((name) => !gitTokens.has(name));
    expect(forbidden).toEqual(expect.arrayContaining(['SLACK_BOT_TOKEN', 'GITHUB_TOKEN', ...routingKeyEnvs()]));
    for (const worker of workers) {
      const env = podEnv(podSpec(worker), manifests);
      for (const e of env) {
        expect(forbidden, `${worker.metadata.name}: ${e.name}`).not.toContain(e.name);
        expect(e.name, worker.metadata.name).not.toMatch(/^(SLACK_|GITHUB_|PAGERDUTY_)/);
        if (e.secret) expect(forbidden, `${worker.metadata.name}: key ${e.secret.key}`).not.toContain(e.secret.key);
      }
      // A Secret a worker mounts or reads whole would bring every key it holds.
      for (const secret of podSecretNames(podSpec(worker))) {
        expect(secret).not.toBe('driftgate-control-plane');
        for (const key of secretKeys(manifests, secret)) expect(forbidden, `${secret}.${key}`).not.toContain(key);
      }
    }
  });

  it('get the database from a Secret holding DATABASE_URL only', () => {
    for (const worker of workers) {
      const db = podEnv(podSpec(worker), manifests).find((e) => e.name === 'DATABASE_URL');
      const secret = named(manifests, 'Secret', db!.secret!.name);
      expect(Object.keys(secret.stringData)).toEqual(['DATABASE_URL']);
      expect(secret.metadata.name).not.toBe('driftgate-control-plane');
    }
  });

  it('are live and started on /healthz, on the port they listen on', () => {
    for (const w of workers) {
      const c = container(w);
      expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      expect(c.startupProbe.httpGet.path).toBe('/healthz');
      for (const probe of [c.livenessProbe, c.startupProbe]) {
        expect(containerPortOf(w, probe.httpGet.port), w.metadata.name).toBe(listenPort(w));
      }
    }
  });

  it('have time on SIGTERM for running plans to finish, then for terraform to stop', () => {
    const seconds = (config.defaults.shutdownTimeout + config.terraform.timeouts.killGrace) / 1000;
    for (const w of workers) expect(podSpec(w).terminationGracePeriodSeconds, w.metadata.name).toBeGreaterThan(seconds);
  });

  it('take no inbound traffic but the metrics scrape', () => {
    const policy = byKind(manifests, 'NetworkPolicy').find((p) =>
      workers.every((w) => selects(p.spec.podSelector.matchLabels, w.spec.template.metadata.labels)),
    );
    expect(policy?.spec.policyTypes).toContain('Ingress');
    for (const rule of policy!.spec.ingress) {
      expect(rule.from?.length, 'every ingress rule names its sources').toBeGreaterThan(0);
      for (const p of rule.ports) for (const w of workers) expect(containerPortOf(w, p.port)).toBe(listenPort(w));
    }
  });
});

describe('deploy/kubernetes: every pod', () => {
  it.each(deployments.map((d) => [d.metadata.name, d] as const))('%s: its selector matches its template', (_, d) => {
    expect(selects(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    const others = deployments.filter((o) => o !== d);
    for (const o of others) expect(selects(d.spec.selector.matchLabels, o.spec.template.metadata.labels)).toBe(false);
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))('%s: runs locked down', (_, d) => {
    const pod = podSpec(d);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: imageUid,
      runAsGroup: imageUid,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(imageUid).toBeGreaterThan(0);
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      expect(c.securityContext, c.name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.securityContext.runAsNonRoot ?? pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext.privileged ?? false).toBe(false);
      expect(c.resources.requests).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
      expect(c.resources.limits.memory).toBeDefined();
    }
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    '%s: writes only to emptyDirs, at /tmp and the config’s dataDir',
    (_, d) => {
      const pod = podSpec(d);
      const writable = container(d)
        .volumeMounts.filter((m: { readOnly?: boolean }) => !m.readOnly)
        .map((m: { name: string; mountPath: string }) => {
          expect(pod.volumes.find((v: { name: string }) => v.name === m.name).emptyDir, m.mountPath).toBeDefined();
          return m.mountPath;
        });
      expect(writable.sort()).toEqual([config.dataDir, '/tmp'].sort());
    },
  );

  it('all run the one image, by a tag that is not latest', () => {
    const images = new Set(deployments.flatMap((d) => podSpec(d).containers.map((c: { image: string }) => c.image)));
    expect(images.size).toBe(1);
    const [image] = images;
    expect(image).toMatch(/^[a-z0-9.-]+(\/[a-z0-9._-]+)+:[\w.-]+(@sha256:[0-9a-f]{64})?$/);
    expect(image).not.toMatch(/:latest\b/);
  });

  it('every NetworkPolicy selects pods that exist, and names ports they have', () => {
    for (const policy of byKind(manifests, 'NetworkPolicy')) {
      const pods = deployments.filter((d) =>
        selects(policy.spec.podSelector.matchLabels, d.spec.template.metadata.labels),
      );
      expect(pods.length, policy.metadata.name).toBeGreaterThan(0);
      for (const rule of policy.spec.ingress) {
        for (const p of rule.ports) for (const pod of pods) expect(containerPortOf(pod, p.port)).toBeDefined();
      }
    }
  });

  it("keep the schema owner's URL in the migrate Job alone: serve and the workers hold only DATABASE_URL", () => {
    const migrate = named(manifests, 'Job', 'driftgate-migrate');
    expect(container(migrate).args).toEqual(['migrate', '--config', '/etc/driftgate/driftgate.yml']);
    const env = podEnv(podSpec(migrate), manifests);
    expect(env.find((e) => e.name === 'DATABASE_OWNER_URL')?.secret).toMatchObject({
      name: 'driftgate-db-owner',
      key: 'DATABASE_OWNER_URL',
    });
    expect(env.find((e) => e.name === 'DATABASE_URL')?.secret?.name).toBe('driftgate-control-plane');
    expect(Object.keys(named(manifests, 'Secret', 'driftgate-db-owner').stringData)).toEqual(['DATABASE_OWNER_URL']);
    for (const d of deployments) {
      expect(podSecretNames(podSpec(d)), d.metadata.name).not.toContain('driftgate-db-owner');
      for (const e of podEnv(podSpec(d), manifests)) {
        expect(e.name, d.metadata.name).not.toBe('DATABASE_OWNER_URL');
        expect(e.secret?.key, d.metadata.name).not.toBe('DATABASE_OWNER_URL');
      }
    }
    expect(podSpec(migrate).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: imageUid });
    expect(container(migrate).securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(container(migrate).image).toBe(container(controlPlane).image);
  });

  it('Secrets hold placeholders only, never a value that looks real', () => {
    for (const secret of byKind(manifests, 'Secret')) {
      expect(secret.data, secret.metadata.name).toBeUndefined();
      for (const [key, value] of Object.entries<string>(secret.stringData)) {
        expect(value, `${secret.metadata.name}.${key}`).toContain('REPLACE_ME');
        expect(value, `${secret.metadata.name}.${key}`).not.toMatch(/xox[bpa]-|ghp_|github_pat_|-----BEGIN/);
      }
    }
  });
});

function routingKeyEnvs(): string[] {
  return config.pagerduty?.routing.map((r) => r.routingKeyEnv) ?? [];
}

/** The number of a container port, given by name or number as a probe or Service gives it. */
function containerPortOf(d: Manifest, port: string | number): number | undefined {
  const ports: { name?: string; containerPort: number }[] = container(d).ports ?? [];
  return typeof port === 'number'
    ? ports.find((p) => p.containerPort === port)?.containerPort
    : ports.find((p) => p.name === port)?.containerPort;
}

/** The port driftgate listens on: PORT, else its default 3000 (src/cli/commands/serve.ts). */
function listenPort(d: Manifest): number {
  const port = podEnv(podSpec(d), manifests).find((e) => e.name === 'PORT')?.value;
  return Number(port ?? 3000);
}

import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_PLANE_URL_ENV, forbiddenVariablesHeld, POOL_TOKEN_ENV } from '../../src/app/agent-worker.js';
import type { DriftgateConfig } from '../../src/config/schema.js';
import { byKind, flagValue, loadManifests, type Manifest, named, ROOT, selects } from './deploy-files.js';
import {
  DEPLOY_ENV,
  type ExampleRepository,
  exampleRepository,
  loadDeployedConfig,
  loadWorkerConfig,
  validateDeployedConfig,
} from './deploy-config.js';
import { CLOUD_CREDENTIAL, podEnv, podSecretNames, secretKeys } from './pod-secrets.js';

const manifests = loadManifests();
const deployments = byKind(manifests, 'Deployment');
const controlPlane = named(manifests, 'Deployment', 'driftgate-control-plane');
const workers = deployments.filter((d) => d.spec.template.spec.containers[0].args[0] === 'worker');
/** Every pod template: the Deployments' and the Jobs'. */
const podOwners = [...deployments, ...byKind(manifests, 'Job')];
const configMap = named(manifests, 'ConfigMap', 'driftgate-config');
const document = parse(configMap.data['driftgate.yml']) as Record<string, unknown>;
const podSpec = (d: Manifest) => d.spec.template.spec;
const container = (d: Manifest) => podSpec(d).containers[0];

/** The uid the Dockerfile gives the driftgate user: the pods must run as that one. */
const imageUid = Number(/useradd [^\n]*--uid (\d+)/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1]);

let config: DriftgateConfig;
/** The same file as a worker on the agent API reads it. */
let workerConfig: DriftgateConfig;
/** What its `discover` rules find the stacks in: the examples' stacks in a local repository. */
let repository: ExampleRepository;
beforeAll(async () => {
  repository = await exampleRepository();
  config = await loadDeployedConfig(document, ROOT, repository);
  workerConfig = await loadWorkerConfig(document, ROOT, repository);
});
afterAll(() => repository?.cleanup());

describe('deploy/kubernetes: the ConfigMap', () => {
  it("holds a driftgate.yml that driftgate's own loader accepts, with no warning", async () => {
    const result = await validateDeployedConfig(document, { baseDir: ROOT, env: DEPLOY_ENV, repository });
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    // Found by discovery in the repository, each a Git stack in its environment and pool.
    expect(result.config?.stacks.map((s) => [s.name, s.environment, s.pool, s.git?.path])).toEqual(
      ['dev', 'prod', 'staging'].flatMap((env) =>
        ['app', 'database', 'networking'].map((layer) => [
          `${env}/${layer}`,
          env,
          env === 'prod' ? 'prod' : 'nonprod',
          `environments/${env}/${layer}`,
        ]),
      ),
    );
  });

  it('names the shared Postgres store, workers on the agent API over TLS, and an S3 artifact bucket', () => {
    expect(document.store).toEqual({ type: 'postgres', url: '${DATABASE_URL}' });
    expect(config.runners).toMatchObject({ type: 'workers', agent: { port: 3001, tls: expect.any(Object) } });
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

  it('serves the agent API on its agent port, with the certificate and key of a TLS Secret only it mounts', () => {
    expect(containerPortOf(controlPlane, 'agent')).toBe(agent().port);
    const tls = agent().tls!;
    const secrets = new Set<string>();
    for (const file of [tls.certFile, tls.keyFile]) {
      const { mount, volume } = mountOf(controlPlane, file);
      expect(mount.readOnly, file).toBe(true);
      expect(volume.secret?.secretName, file).toBeDefined();
      expect(
        volume.secret.items.map((i: { path: string }) => i.path),
        file,
      ).toContain(basename(file));
      secrets.add(volume.secret.secretName);
    }
    expect([...secrets]).toEqual(['driftgate-agent-tls']);
    const secret = named(manifests, 'Secret', 'driftgate-agent-tls');
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(Object.keys(secret.stringData).sort()).toEqual(['tls.crt', 'tls.key']);
    for (const d of podOwners.filter((d) => d !== controlPlane))
      expect(podSecretNames(podSpec(d)), d.metadata.name).not.toContain('driftgate-agent-tls');
  });

  it('admits workers to the agent port only, and nothing else to it', () => {
    const policy = named(manifests, 'NetworkPolicy', 'driftgate-control-plane');
    expect(selects(policy.spec.podSelector.matchLabels, controlPlane.spec.template.metadata.labels)).toBe(true);
    const agentPort = agent().port;
    const opening = policy.spec.ingress.filter((rule: IngressRule) =>
      (rule.ports ?? []).some((p) => containerPortOf(controlPlane, p.port) === agentPort),
    );
    expect(opening.length).toBeGreaterThan(0);
    for (const rule of opening as IngressRule[]) {
      expect(rule.from?.length, 'the agent port names its sources').toBeGreaterThan(0);
      for (const peer of rule.from!) {
        // A namespaceSelector or an ipBlock would let in pods or addresses that are not this namespace's workers.
        expect(Object.keys(peer)).toEqual(['podSelector']);
        for (const d of deployments)
          expect(selects(peer.podSelector!.matchLabels, d.spec.template.metadata.labels), d.metadata.name).toBe(
            workers.includes(d),
          );
      }
      expect(rule.ports!.map((p) => containerPortOf(controlPlane, p.port))).toEqual([agentPort]);
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
    const pools = new Set(config.stacks.map((s) => s.pool));
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

  it('reach the control plane through the agent Service, over HTTPS, trusting its CA from a ConfigMap', () => {
    const service = named(manifests, 'Service', 'driftgate-agent');
    expect(selects(service.spec.selector, controlPlane.spec.template.metadata.labels)).toBe(true);
    for (const w of workers)
      expect(selects(service.spec.selector, w.spec.template.metadata.labels), w.metadata.name).toBe(false);
    for (const w of workers) {
      const env = podEnv(podSpec(w), manifests);
      const url = new URL(env.find((e) => e.name === CONTROL_PLANE_URL_ENV)!.value!);
      expect(url.protocol, `${w.metadata.name}: the agent API has tls`).toBe(agent().tls ? 'https:' : 'http:');
      // driftgate-agent, or driftgate-agent.<namespace>.svc[.cluster.local]
      expect(url.hostname.split('.')[0], w.metadata.name).toBe(service.metadata.name);
      const port = service.spec.ports.find((p: { port: number }) => p.port === Number(url.port));
      expect(port, `${w.metadata.name}: ${url.port} is a port of ${service.metadata.name}`).toBeDefined();
      expect(containerPortOf(controlPlane, port.targetPort)).toBe(agent().port);
      const ca = env.find((e) => e.name === 'NODE_EXTRA_CA_CERTS')!.value!;
      const { mount, volume } = mountOf(w, ca);
      expect(mount.readOnly).toBe(true);
      const configMap = named(manifests, 'ConfigMap', volume.configMap.name);
      expect(Object.keys(configMap.data)).toContain(basename(ca));
    }
    // The public Service never carries the agent port: an Ingress or a load balancer publishes that one.
    for (const p of named(manifests, 'Service', 'driftgate').spec.ports)
      expect(containerPortOf(controlPlane, p.targetPort)).not.toBe(agent().port);
  });

  it('hold nothing a worker on the agent API refuses to start with: no store, owner or bucket variable, no bot secret', () => {
    const refused = (names: string[]) =>
      forbiddenVariablesHeld(workerConfig, Object.fromEntries(names.map((n) => [n, 'REPLACE_ME'])));
    // What the worker itself refuses, so that this check fails when a pod gets what the control plane holds.
    // A read-only Git token is a worker's to hold: it checks out the code it plans.
    expect(refused(['DATABASE_URL', 'DATABASE_OWNER_URL', 'SLACK_BOT_TOKEN', 'GIT_TOKEN'])).toEqual([
      'DATABASE_OWNER_URL',
      'DATABASE_URL',
      'SLACK_BOT_TOKEN',
    ]);
    for (const w of workers) {
      const names = podEnv(podSpec(w), manifests).map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining([CONTROL_PLANE_URL_ENV, POOL_TOKEN_ENV]));
      expect(refused(names), w.metadata.name).toEqual([]);
      expect(
        names.filter((n) => CLOUD_CREDENTIAL.test(n)),
        `${w.metadata.name}: its pool's cloud comes from its ServiceAccount, and no bucket key`,
      ).toEqual([]);
      for (const e of podEnv(podSpec(w), manifests))
        expect(e.name, w.metadata.name).not.toMatch(/^(SLACK_|GITHUB_|PAGERDUTY_|DATABASE_)/);
    }
  });

  it("read one Secret: their own pool's, holding its token and a read-only Git token, read by no other pod", () => {
    const tokenSecrets = new Set<string>();
    for (const w of workers) {
      const pool = flagValue(container(w).args, '--pool');
      const [secret, ...more] = podSecretNames(podSpec(w));
      expect(more, `${w.metadata.name} reads one Secret`).toEqual([]);
      const object = named(manifests, 'Secret', secret!);
      expect(object.metadata.labels?.['driftgate/pool'], `${secret} is pool ${pool}'s`).toBe(pool);
      expect(Object.keys(object.stringData)).toEqual([POOL_TOKEN_ENV, 'GIT_TOKEN']);
      expect(podEnv(podSpec(w), manifests).find((e) => e.name === POOL_TOKEN_ENV)?.secret).toMatchObject({
        name: secret,
        key: POOL_TOKEN_ENV,
        optional: false,
      });
      tokenSecrets.add(secret!);
    }
    expect(tokenSecrets.size).toBe(workers.length);
    for (const d of podOwners) {
      const own = workers.includes(d) ? podSecretNames(podSpec(d)) : [];
      for (const secret of podSecretNames(podSpec(d)).filter((s) => !own.includes(s)))
        expect(tokenSecrets, `${d.metadata.name} reads ${secret}`).not.toContain(secret);
    }
  });

  it('never read a Secret the control plane or the migrate Job reads: the database, its owner, the bucket, the bot', () => {
    const controlPlaneSecrets = podOwners
      .filter((d) => !workers.includes(d))
      .flatMap((d) => podSecretNames(podSpec(d)));
    expect(controlPlaneSecrets).toEqual(expect.arrayContaining(['driftgate-control-plane', 'driftgate-db-owner']));
    for (const w of workers) {
      for (const secret of podSecretNames(podSpec(w))) {
        expect(controlPlaneSecrets, `${w.metadata.name}: ${secret}`).not.toContain(secret);
        for (const key of secretKeys(manifests, secret))
          expect(key, `${secret}.${key}`).not.toMatch(/^(DATABASE_|AWS_|GOOGLE_|SLACK_|GITHUB_|PAGERDUTY_)/);
      }
    }
  });

  it('run each pool on nodes of its own choosing, a pinned pool alone on its nodes', () => {
    const pinned = workers.filter((w) => podSpec(w).nodeSelector?.[POOL_NODE_LABEL] !== undefined);
    expect(pinned.length, 'at least one pool is pinned to its nodes').toBeGreaterThan(0);
    for (const w of workers) {
      const pool = flagValue(container(w).args, '--pool')!;
      const spec = podSpec(w);
      const selector: string | undefined = spec.nodeSelector?.[POOL_NODE_LABEL];
      expect(
        selector !== undefined || requiredPoolTerms(w).length > 0,
        `${w.metadata.name} says where it runs (nodeSelector or required nodeAffinity on ${POOL_NODE_LABEL})`,
      ).toBe(true);
      if (selector !== undefined) {
        expect(selector, w.metadata.name).toBe(pool);
        expect(spec.tolerations, w.metadata.name).toContainEqual({
          key: POOL_NODE_LABEL,
          operator: 'Equal',
          value: pool,
          effect: 'NoSchedule',
        });
      }
      for (const other of pinned.filter((p) => p !== w)) {
        const theirs = podSpec(other).nodeSelector[POOL_NODE_LABEL];
        expect(excludes(w, theirs), `${w.metadata.name} stays off pool ${theirs}'s nodes`).toBe(true);
        for (const t of spec.tolerations ?? [])
          expect(t.key === POOL_NODE_LABEL && t.value === theirs, `${w.metadata.name} tolerates ${theirs}`).toBe(false);
      }
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

describe('deploy/kubernetes: terraform in its own container beside each worker', () => {
  const terraformOf = (w: Manifest) =>
    (podSpec(w).initContainers ?? []).find((c: { args: string[] }) => c.args[0] === 'terraform-runner');

  it('the config runs terraform in the container (runners.terraformContainer), and every worker pod has one', () => {
    expect(config.terraformContainer?.dir).toBeDefined();
    for (const w of workers) {
      const c = terraformOf(w);
      expect(c, w.metadata.name).toBeDefined();
      // A sidecar: started before the worker (once its socket is there), stopped after it.
      expect(c.restartPolicy).toBe('Always');
      expect(c.startupProbe.exec.command).toEqual(['test', '-S', config.terraformContainer!.socket]);
      expect(flagValue(c.args, '--dir')).toBe(config.terraformContainer!.dir);
      expect(flagValue(c.args, '--binary')).toBe(config.terraform.binary);
      const mountOf = (x: { volumeMounts: { name: string; mountPath: string }[] }) =>
        x.volumeMounts.find((m) => m.mountPath === config.terraformContainer!.dir)?.name;
      // The same emptyDir, at the same path in both: the paths the worker sends mean the same files there.
      expect(mountOf(c), w.metadata.name).toBeDefined();
      expect(mountOf(container(w)), w.metadata.name).toBe(mountOf(c));
    }
  });

  it('runs as a uid of its own, and the shared dir is the only thing of the worker’s it mounts', () => {
    for (const w of workers) {
      const c = terraformOf(w);
      expect(c.securityContext.runAsUser).toBeGreaterThan(0);
      expect(c.securityContext.runAsUser, 'not the worker’s uid').not.toBe(
        container(w).securityContext.runAsUser ?? podSpec(w).securityContext.runAsUser,
      );
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      const workerMounts = new Set(container(w).volumeMounts.map((m: { name: string }) => m.name));
      const shared = c.volumeMounts.filter((m: { name: string }) => workerMounts.has(m.name));
      expect(shared.map((m: { mountPath: string }) => m.mountPath)).toEqual([config.terraformContainer!.dir]);
    }
  });

  it('holds no Secret and no token: no environment from a Secret, no Secret volume, none of driftgate’s variables', () => {
    for (const w of workers) {
      const c = terraformOf(w);
      const alone = { volumes: podSpec(w).volumes, containers: [c] };
      expect(c.envFrom ?? [], w.metadata.name).toEqual([]);
      expect(
        podEnv(alone, manifests).filter((e) => e.secret),
        w.metadata.name,
      ).toEqual([]);
      const names = podEnv(alone, manifests).map((e) => e.name);
      expect(names).not.toContain(POOL_TOKEN_ENV);
      expect(names).not.toContain('GIT_TOKEN');
      // Its mounts: no volume that is a Secret, or projects one.
      for (const m of c.volumeMounts) {
        const volume = podSpec(w).volumes.find((v: { name: string }) => v.name === m.name);
        expect(volume.secret, m.name).toBeUndefined();
        expect(volume.projected, m.name).toBeUndefined();
        expect(volume.emptyDir, m.name).toBeDefined();
      }
    }
  });
});

describe('deploy/kubernetes: what a worker pod may reach (a module of its pool runs there)', () => {
  const policies = byKind(manifests, 'NetworkPolicy').filter(
    (p) =>
      p.spec.policyTypes?.includes('Egress') &&
      workers.some((w) => selects(p.spec.podSelector.matchLabels, w.spec.template.metadata.labels)),
  );

  it('every worker is under an egress policy', () => {
    for (const w of workers)
      expect(
        policies.some((p) => selects(p.spec.podSelector.matchLabels, w.spec.template.metadata.labels)),
        w.metadata.name,
      ).toBe(true);
  });

  it("the control plane's agent port, DNS, and HTTPS outside the cluster, never the instance metadata address", () => {
    const rules: EgressRule[] = policies.flatMap((p) => p.spec.egress ?? []);
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      // A rule without `to` or without ports lets everything through.
      expect(rule.to?.length, 'every egress rule names where').toBeGreaterThan(0);
      expect(rule.ports?.length, 'every egress rule names its ports').toBeGreaterThan(0);
      for (const peer of rule.to!) {
        if (peer.ipBlock) {
          expect(Object.keys(peer)).toEqual(['ipBlock']);
          expect(rule.ports!.map((p) => p.port)).toEqual([443]);
          expect(
            reaches(peer.ipBlock, METADATA_ADDRESS),
            `${peer.ipBlock.cidr} lets a module reach ${METADATA_ADDRESS}`,
          ).toBe(false);
        } else if (peer.namespaceSelector) {
          // The cluster's DNS, and nothing else of another namespace.
          expect(peer).toEqual({
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
            podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          });
          expect(new Set(rule.ports!.map((p) => p.port))).toEqual(new Set([53]));
        } else {
          // A pod of this namespace: the control plane, on its agent port.
          for (const d of deployments)
            expect(selects(peer.podSelector!.matchLabels, d.spec.template.metadata.labels), d.metadata.name).toBe(
              d === controlPlane,
            );
          expect(rule.ports!.map((p) => p.port)).toEqual([agent().port]);
        }
      }
    }
  });
});

describe('deploy/kubernetes: every pod', () => {
  it.each(deployments.map((d) => [d.metadata.name, d] as const))('%s: its selector matches its template', (_, d) => {
    expect(selects(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    const others = deployments.filter((o) => o !== d);
    for (const o of others) expect(selects(d.spec.selector.matchLabels, o.spec.template.metadata.labels)).toBe(false);
  });

  it.each(podOwners.map((d) => [d.metadata.name, d] as const))('%s: runs locked down', (_, d) => {
    const pod = podSpec(d);
    expect(pod.automountServiceAccountToken).toBe(false);
    for (const shared of ['hostPID', 'hostIPC', 'hostNetwork', 'shareProcessNamespace'])
      expect(pod[shared] ?? false, `${shared}: no container sees another's processes or the node's`).toBe(false);
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

  it.each(podOwners.map((d) => [d.metadata.name, d] as const))(
    '%s: writes only to emptyDirs, at /tmp and the config’s dataDir (a worker: and the dir it shares with terraform)',
    (_, d) => {
      const pod = podSpec(d);
      const writable = (c: { volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }) =>
        c.volumeMounts
          .filter((m) => !m.readOnly)
          .map((m) => {
            expect(pod.volumes.find((v: { name: string }) => v.name === m.name).emptyDir, m.mountPath).toBeDefined();
            return m.mountPath;
          })
          .sort();
      const shared = workers.includes(d) ? [config.terraformContainer!.dir] : [];
      expect(writable(container(d))).toEqual([config.dataDir, '/tmp', ...shared].sort());
      for (const sidecar of pod.initContainers ?? []) expect(writable(sidecar)).toEqual(['/tmp', ...shared].sort());
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

  it("keep the schema owner's URL in the migrate Job alone: serve holds only DATABASE_URL, the workers neither", () => {
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

/** The node label a pool's nodes carry (and their taint's key). */
const POOL_NODE_LABEL = 'driftgate/pool';
/** The instance metadata service of EC2, Azure and GCE: it hands out the node's identity. */
const METADATA_ADDRESS = '169.254.169.254';

interface PolicyPort {
  protocol?: string;
  port: string | number;
}
interface Peer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface IngressRule {
  from?: Peer[];
  ports?: PolicyPort[];
}
interface EgressRule {
  to?: Peer[];
  ports?: PolicyPort[];
}

function agent() {
  if (config.runners?.type !== 'workers' || !config.runners.agent) throw new Error('runners.agent is not set');
  return config.runners.agent;
}

/** The volume mount a path of the container lies under, and its volume. */
function mountOf(d: Manifest, path: string) {
  const mount = container(d).volumeMounts.find((m: { mountPath: string }) => path.startsWith(`${m.mountPath}/`));
  if (!mount) throw new Error(`${d.metadata.name}: nothing is mounted where ${path} is`);
  return { mount, volume: podSpec(d).volumes.find((v: { name: string }) => v.name === mount.name) };
}

/** The required nodeAffinity terms of a pod that speak of the pool label. */
function requiredPoolTerms(d: Manifest): { key: string; operator: string; values: string[] }[][] {
  const terms = podSpec(d).affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return (terms ?? []).map((t: { matchExpressions?: { key: string; operator: string; values: string[] }[] }) =>
    (t.matchExpressions ?? []).filter((e) => e.key === POOL_NODE_LABEL),
  );
}

/** A pod cannot be scheduled on nodes labelled with this pool (terms are ORed, expressions ANDed). */
function excludes(d: Manifest, pool: string): boolean {
  const selector = podSpec(d).nodeSelector?.[POOL_NODE_LABEL];
  if (selector !== undefined) return selector !== pool;
  const terms = requiredPoolTerms(d);
  return (
    terms.length > 0 &&
    terms.every((expressions) =>
      expressions.some(
        (e) => (e.operator === 'NotIn' && e.values.includes(pool)) || (e.operator === 'In' && !e.values.includes(pool)),
      ),
    )
  );
}

/** Whether an ipBlock lets an IPv4 address through (inside its cidr and outside every except). */
function reaches(block: { cidr: string; except?: string[] }, address: string): boolean {
  return inCidr(block.cidr, address) && !(block.except ?? []).some((cidr) => inCidr(cidr, address));
}

function inCidr(cidr: string, address: string): boolean {
  if (cidr.includes(':')) return false; // IPv6 ranges never hold an IPv4 address
  const [base, bits] = cidr.split('/');
  const toInt = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toInt(base!) / size) === Math.floor(toInt(address) / size);
}

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

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStorePath } from '../../src/adapters/store/open-store.js';
import { ownSecretNames } from '../../src/app/context.js';
import { byKind, flagValue, KUBERNETES_SINGLE_DIR, loadManifests, manifestFiles, named } from './deploy-files.js';
import { type ExampleRepository, exampleRepository, loadDeployedConfig } from './deploy-config.js';
import { model } from './models.js';
import { podEnv } from './pod-secrets.js';
import { kindDeclaration, unknownFields } from './unknown-fields.js';

/** deploy/kubernetes-single: one `serve` on a SQLite store kept on a PersistentVolumeClaim. */
const manifests = loadManifests(KUBERNETES_SINGLE_DIR);
const deployment = named(manifests, 'Deployment', 'driftgate');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const document = parse(named(manifests, 'ConfigMap', 'driftgate-config').data['driftgate.yml']);
/** What its `discover` rule finds the stacks in: the examples' stacks in a local repository. */
let repository: ExampleRepository;
beforeAll(async () => {
  repository = await exampleRepository();
});
afterAll(() => repository?.cleanup());

describe('deploy/kubernetes-single: every object against its Kubernetes schema', () => {
  it.each(manifests.map((m) => [`${m.kind} ${m.metadata.name}`, m] as const))('%s is valid', (_, manifest) => {
    const { file: _file, ...object } = manifest;
    expect(() => model(object.apiVersion, object.kind, object).validate()).not.toThrow();
    expect(unknownFields(object, kindDeclaration(object.apiVersion, object.kind))).toEqual([]);
  });

  it('the kustomization lists every manifest, and only those', () => {
    const kustomization = parse(readFileSync(join(KUBERNETES_SINGLE_DIR, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    expect([...kustomization.resources].sort()).toEqual(manifestFiles(KUBERNETES_SINGLE_DIR));
  });
});

describe('deploy/kubernetes-single: one serve on SQLite', () => {
  it('runs `serve` with the mounted config, in one replica replaced with Recreate (a second serve would be refused)', () => {
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    expect(container.args[0]).toBe('serve');
    const configPath = flagValue(container.args, '--config')!;
    const mount = container.volumeMounts.find((m: { mountPath: string }) => configPath.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    expect(pod.volumes.find((v: { name: string }) => v.name === mount.name).configMap.name).toBe('driftgate-config');
  });

  it('finds its stacks with discover in the branch head of its repository, each a Git stack', async () => {
    const config = await loadDeployedConfig(document, '/etc/driftgate', repository);
    expect(config.stacks).toHaveLength(9);
    expect(config.stacks.find((s) => s.name === 'prod/app')?.git).toMatchObject({
      path: 'environments/prod/app',
      tokenEnv: 'GIT_TOKEN',
    });
  });

  it('keeps the SQLite store on the PersistentVolumeClaim: dataDir is its mount', async () => {
    const config = await loadDeployedConfig(document, '/etc/driftgate', repository);
    expect(config.store ?? { type: 'sqlite' }).toEqual({ type: 'sqlite' });
    expect(config.runners?.type ?? 'local').toBe('local');
    const mount = container.volumeMounts.find((m: { mountPath: string }) =>
      sqliteStorePath(config.dataDir).startsWith(`${m.mountPath}/`),
    );
    const volume = pod.volumes.find((v: { name: string }) => v.name === mount?.name);
    const claim = named(manifests, 'PersistentVolumeClaim', volume?.persistentVolumeClaim?.claimName ?? '?');
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
  });

  it('reads every secret the config names from keys its Secret holds (or may leave out, when optional)', async () => {
    const config = await loadDeployedConfig(document, '/etc/driftgate', repository);
    const env = podEnv(pod, manifests);
    const secret = named(manifests, 'Secret', 'driftgate');
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', ...ownSecretNames(config)]) {
      const source = env.find((e) => e.name === name);
      if (!source) continue;
      expect(source.secret?.name, name).toBe('driftgate');
      if (!source.secret?.optional) expect(Object.keys(secret.stringData), name).toContain(source.secret?.key);
    }
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', config.source?.git?.tokenEnv])
      expect(env.map((e) => e.name)).toContain(name);
  });

  it('is started, live and ready on /healthz and /readyz of the port it listens on, and reached through the Service', () => {
    const port = container.env.find((e: { name: string }) => e.name === 'PORT').value;
    expect(container.ports).toEqual([{ name: 'http', containerPort: Number(port) }]);
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    const [service] = byKind(manifests, 'Service');
    expect(service?.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(service?.spec.ports[0].targetPort).toBe('http');
  });

  it("runs as the image's user with a read-only root filesystem and no Kubernetes API token", () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });
});

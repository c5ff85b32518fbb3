import type { Manifest } from './deploy-files.js';

/** One environment variable a container gets, and where its value comes from. */
export interface EnvSource {
  name: string;
  secret?: { name: string; key: string; optional: boolean };
  value?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a pod spec as parsed from YAML
type PodSpec = any;

/**
 * Every variable of every container of a pod: `env` (values and secretKeyRef) and `envFrom` secrets,
 * expanded to the keys the Secret object holds, so a whole Secret cannot slip in unnoticed.
 */
export function podEnv(spec: PodSpec, manifests: readonly Manifest[]): EnvSource[] {
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  return containers.flatMap((c) => [
    ...(c.env ?? []).map(
      (e: {
        name: string;
        value?: string;
        valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
      }) => ({
        name: e.name,
        ...(e.valueFrom?.secretKeyRef
          ? {
              secret: {
                name: e.valueFrom.secretKeyRef.name,
                key: e.valueFrom.secretKeyRef.key,
                optional: e.valueFrom.secretKeyRef.optional ?? false,
              },
            }
          : {}),
        ...(e.value !== undefined ? { value: e.value } : {}),
      }),
    ),
    ...(c.envFrom ?? []).flatMap((from: { secretRef?: { name: string; optional?: boolean }; prefix?: string }) => {
      if (!from.secretRef) return [];
      const { name, optional = false } = from.secretRef;
      return secretKeys(manifests, name).map((key) => ({
        name: `${from.prefix ?? ''}${key}`,
        secret: { name, key, optional },
      }));
    }),
  ]);
}

/** The names of the Secrets a pod reads by any route: env, envFrom, secret volumes, projected volumes. */
export function podSecretNames(spec: PodSpec): string[] {
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const names = [
    ...containers.flatMap((c) => [
      ...(c.env ?? []).flatMap((e: { valueFrom?: { secretKeyRef?: { name: string } } }) =>
        e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [],
      ),
      ...(c.envFrom ?? []).flatMap((f: { secretRef?: { name: string } }) => (f.secretRef ? [f.secretRef.name] : [])),
    ]),
    ...(spec.volumes ?? []).flatMap(
      (v: { secret?: { secretName: string }; projected?: { sources: { secret?: { name: string } }[] } }) => [
        ...(v.secret ? [v.secret.secretName] : []),
        ...(v.projected?.sources ?? []).flatMap((s) => (s.secret ? [s.secret.name] : [])),
      ],
    ),
  ];
  return [...new Set(names)];
}

export function secretKeys(manifests: readonly Manifest[], name: string): string[] {
  const secret = manifests.find((m) => m.kind === 'Secret' && m.metadata.name === name);
  if (!secret) throw new Error(`a pod reads the Secret ${name}, which deploy/kubernetes does not define`);
  return [...Object.keys(secret.stringData ?? {}), ...Object.keys(secret.data ?? {})];
}

/** Variables that hand a process cloud credentials (or point it at them). */
export const CLOUD_CREDENTIAL = /^(AWS_|GOOGLE_|GCLOUD_|CLOUDSDK_|ARM_|AZURE_)/;

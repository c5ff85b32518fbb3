import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(import.meta.dirname, '../..');
export const KUBERNETES_DIR = join(ROOT, 'deploy/kubernetes');
/** The one-process recipe: serve on SQLite, one replica. */
export const KUBERNETES_SINGLE_DIR = join(ROOT, 'deploy/kubernetes-single');
export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');

/** A Kubernetes object as read from a manifest, with the file it came from for messages. */
export interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: the rules walk objects kubernetes-models has validated
  [field: string]: any;
}

/** Every YAML file of deploy/kubernetes (or `dir`) but the kustomization, one object per document. */
export function manifestFiles(dir = KUBERNETES_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .sort();
}

export function readYamlDocuments(path: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  return docs.map((doc) => {
    if (doc.errors.length) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS();
  });
}

export function loadManifests(dir = KUBERNETES_DIR): Manifest[] {
  return manifestFiles(dir).flatMap((file) =>
    readYamlDocuments(join(dir, file)).map((doc) => ({ ...(doc as Manifest), file })),
  );
}

export function byKind(manifests: readonly Manifest[], kind: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind);
}

export function named(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} named ${name} in deploy/kubernetes`);
  return found;
}

/** Labels match a selector's matchLabels (the only form these manifests use). */
export function selects(matchLabels: Record<string, string> | undefined, labels: Record<string, string> | undefined) {
  const wanted = Object.entries(matchLabels ?? {});
  return wanted.length > 0 && wanted.every(([k, v]) => labels?.[k] === v);
}

/** `--flag value` from an argument list. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

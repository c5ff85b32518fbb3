import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { KUBERNETES_DIR, loadManifests, manifestFiles, readYamlDocuments } from './deploy-files.js';
import { model } from './models.js';
import { kindDeclaration, unknownFields } from './unknown-fields.js';

describe('deploy/kubernetes: every object against its Kubernetes schema', () => {
  const manifests = loadManifests();

  it('holds one object per YAML document, each with apiVersion, kind and a name', () => {
    for (const file of manifestFiles()) {
      const docs = readYamlDocuments(join(KUBERNETES_DIR, file));
      expect(docs.length, file).toBeGreaterThan(0);
      for (const doc of docs) {
        expect(doc, file).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String) });
        expect((doc as { kind: string }).kind, `${file}: one object, not a List`).not.toMatch(/List$/);
        expect((doc as { metadata?: { name?: string } }).metadata?.name, file).toMatch(/^[a-z0-9-]+$/);
        // Namespace-agnostic: kubectl -n or kustomize's namespace decides.
        expect((doc as { metadata: { namespace?: string } }).metadata.namespace, file).toBeUndefined();
      }
    }
  });

  it.each(loadManifests().map((m) => [`${m.kind} ${m.metadata.name}`, m] as const))('%s is valid', (_, manifest) => {
    const { file: _file, ...object } = manifest;
    expect(() => model(object.apiVersion, object.kind, object).validate()).not.toThrow();
  });

  it.each(loadManifests().map((m) => [`${m.kind} ${m.metadata.name}`, m] as const))(
    '%s has no field its kind does not declare',
    (_, manifest) => {
      const { file: _file, ...object } = manifest;
      expect(unknownFields(object, kindDeclaration(object.apiVersion, object.kind))).toEqual([]);
    },
  );

  it('the unknown-field check names a misspelt field where it is', () => {
    const deployment = structuredClone(manifests.find((m) => m.kind === 'Deployment')!);
    const { file: _file, ...object } = deployment;
    const container = object.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    container.env[0].valueFrom = { secretKeyRef: { name: 'x', key: 'y', optinal: true } };
    object.metadata.labels = { ...object.metadata.labels, 'any-label': 'is not a field' };
    expect(unknownFields(object, kindDeclaration(object.apiVersion, object.kind))).toEqual([
      'spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.optinal',
      'spec.template.spec.containers[0].readinesProbe',
    ]);
  });

  it('the schema check itself refuses a broken object', () => {
    const deployment = structuredClone(manifests.find((m) => m.kind === 'Deployment')!);
    const { file: _file, ...object } = deployment;
    object.spec.template.spec.containers[0].ports[0].containerPort = 'three thousand';
    expect(() => model(object.apiVersion, object.kind, object).validate()).toThrow(/containerPort/);
  });

  it('the kustomization lists every manifest, and only those', () => {
    const kustomization = parse(readFileSync(join(KUBERNETES_DIR, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    expect([...kustomization.resources].sort()).toEqual(manifestFiles());
  });

  it('names are unique per kind', () => {
    const keys = manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

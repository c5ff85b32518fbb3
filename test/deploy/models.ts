import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';

/** The kinds deploy/ may hold, each as its kubernetes-models class (Kubernetes' OpenAPI schema). */
// biome-ignore lint/suspicious/noExplicitAny: each model takes its own object type; its schema checks it
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

export function model(apiVersion: string, kind: string, data: object): { validate(): void } {
  const Model = MODELS[`${apiVersion}/${kind}`];
  if (!Model) throw new Error(`${apiVersion} ${kind}: not a kind these tests know how to validate`);
  return new Model(data);
}

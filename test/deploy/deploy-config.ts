import { stringify } from 'yaml';
import { type ConfigRole, type ConfigValidation, validateConfigText } from '../../src/config/load.js';
import { ConfigFile, type DriftgateConfig, StackEntry } from '../../src/config/schema.js';

/**
 * Keys of the scale-out mode (issue 13) that the deployment files use while the schema is still being
 * written elsewhere: each is taken out before validation only while the schema lacks it, so the day it
 * lands the files are validated whole, and a key not on this list is never taken out.
 */
export const SCALE_OUT_KEYS = { top: ['store', 'runners'], stack: ['pool'] } as const;

export interface ScaleOutValidation extends ConfigValidation {
  /** What was taken out because the schema does not know it yet, as `store`, `stacks[].pool`. */
  removed: string[];
}

type Document = Record<string, unknown> & { stacks?: Record<string, unknown>[] };

/** driftgate's own loader on a deployment's driftgate.yml (already parsed), less the keys still to come. */
export async function validateDeployedConfig(
  document: Document,
  options: { baseDir: string; env: Record<string, string | undefined>; role?: ConfigRole },
): Promise<ScaleOutValidation> {
  const doc: Document = structuredClone(document);
  const removed: string[] = [];
  for (const key of SCALE_OUT_KEYS.top) {
    if (key in ConfigFile.shape || !(key in doc)) continue;
    delete doc[key];
    removed.push(key);
  }
  for (const key of SCALE_OUT_KEYS.stack) {
    if (key in StackEntry.shape) continue;
    const holders = (doc.stacks ?? []).filter((stack) => key in stack);
    for (const stack of holders) delete stack[key];
    if (holders.length) removed.push(`stacks[].${key}`);
  }
  const result = await validateConfigText(stringify(doc), {
    baseDir: options.baseDir,
    env: options.env,
    ...(options.role ? { role: options.role } : {}),
  });
  return { ...result, removed };
}

/** The pool of every stack, `default` when a stack names none. */
export function stackPools(document: Document): Map<string, string> {
  return new Map(
    (document.stacks ?? []).map((stack) => [
      String(stack.name),
      typeof stack.pool === 'string' ? stack.pool : 'default',
    ]),
  );
}

/** A placeholder for the one variable the deployed configs interpolate. */
export const DEPLOY_ENV = { DATABASE_URL: 'postgres://driftgate:placeholder@127.0.0.1:5432/driftgate' };

/** The loaded config the rules read (pools, secrets, timeouts); throws with the issues when it does not load. */
export async function loadDeployedConfig(document: Document, baseDir: string): Promise<DriftgateConfig> {
  const result = await validateDeployedConfig(document, { baseDir, env: DEPLOY_ENV });
  if (!result.config) throw new Error(`the config does not load: ${JSON.stringify(result.issues)}`);
  return result.config;
}

/** The config as a worker on the agent API loads it: with none of the control plane's variables. */
export async function loadWorkerConfig(document: Document, baseDir: string): Promise<DriftgateConfig> {
  const result = await validateDeployedConfig(document, { baseDir, env: {}, role: 'agent-worker' });
  if (!result.config) throw new Error(`the config does not load on a worker: ${JSON.stringify(result.issues)}`);
  return result.config;
}

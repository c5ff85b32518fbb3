import { join } from 'node:path';
import { stringify } from 'yaml';
import { sourceHeadCheckouts } from '../../src/adapters/git/source-head.js';
import type { CheckoutSourceHead } from '../../src/config/discover-in-source.js';
import { type ConfigRole, type ConfigValidation, validateConfigText } from '../../src/config/load.js';
import { ConfigFile, type DriftgateConfig, StackEntry } from '../../src/config/schema.js';
import { makeTestRepo } from '../adapters/git/git-repo.js';
import { exampleStackFiles } from '../helpers/example-stacks.js';

/**
 * A local repository holding the examples' stacks (environments/{dev,staging,prod}/…), standing in for
 * the deployed configs' `source.git`: their `discover` rules are matched in a checkout of it.
 */
export interface ExampleRepository {
  url: string;
  checkoutHead: CheckoutSourceHead;
  cleanup(): Promise<void>;
}

export async function exampleRepository(): Promise<ExampleRepository> {
  const repo = await makeTestRepo();
  await repo.commit(await exampleStackFiles(), 'Stacks');
  // The deployed dataDir is the pod's volume: the clone goes to the test's own dir instead.
  const heads = sourceHeadCheckouts({ env: { PATH: process.env.PATH, GIT_TOKEN: 'read-only-token-of-the-test' } });
  return { url: repo.url, checkoutHead: (source) => heads(source, join(repo.dir, 'data')), cleanup: repo.cleanup };
}

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
  options: {
    baseDir: string;
    env: Record<string, string | undefined>;
    role?: ConfigRole;
    repository?: ExampleRepository;
  },
): Promise<ScaleOutValidation> {
  const doc: Document = structuredClone(document);
  const git = (doc.source as { git?: { url: string } } | undefined)?.git;
  if (git && options.repository) git.url = options.repository.url;
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
    ...(options.repository ? { checkoutHead: options.repository.checkoutHead } : {}),
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
export function loadDeployedConfig(
  document: Document,
  baseDir: string,
  repository?: ExampleRepository,
): Promise<DriftgateConfig> {
  return loaded(document, { baseDir, env: DEPLOY_ENV, ...(repository ? { repository } : {}) }, '');
}

/** The config as a worker on the agent API loads it: with none of the control plane's variables. */
export function loadWorkerConfig(
  document: Document,
  baseDir: string,
  repository?: ExampleRepository,
): Promise<DriftgateConfig> {
  const options = { baseDir, env: {}, role: 'agent-worker' as const, ...(repository ? { repository } : {}) };
  return loaded(document, options, ' on a worker');
}

async function loaded(
  document: Document,
  options: Parameters<typeof validateDeployedConfig>[1],
  where: string,
): Promise<DriftgateConfig> {
  const result = await validateDeployedConfig(document, options);
  if (!result.config) throw new Error(`the config does not load${where}: ${JSON.stringify(result.issues)}`);
  return result.config;
}

import { relative, isAbsolute } from 'node:path';
import type { ConfigIssue } from '../domain/errors.js';
import { configuredPools } from '../domain/pool/configured-pools.js';
import type { ConfigFile, DriftgateConfig } from './schema.js';

/**
 * Workers run in other processes, on other machines: they share the store and the saved plans only
 * through Postgres and S3. A local SQLite file or artifact directory would leave each process its own.
 */
export function runnersIssues(file: ConfigFile): ConfigIssue[] {
  if (file.runners.type !== 'workers') return cloudTrailRegionIssues(file);
  const issues: ConfigIssue[] = [];
  if (file.store.type !== 'postgres')
    issues.push({
      path: 'store.type',
      message: `runners: {type: workers} needs the shared store: store: {type: postgres, url: \${DATABASE_URL}}`,
    });
  if (file.artifacts.type !== 's3')
    issues.push({
      path: 'artifacts.type',
      message: 'runners: {type: workers} needs saved plans every process can read: artifacts: {type: s3, bucket: ...}',
    });
  return issues;
}

/**
 * CloudTrail is regional: driftgate must know where to ask. With local runners, `cloudTrail.region` or the
 * SQS queue's; with workers, each worker can use its own environment's region (its pool's), so none is
 * required here.
 */
function cloudTrailRegionIssues(file: ConfigFile): ConfigIssue[] {
  const events = file.changeEvents;
  if (!events?.cloudTrail.lookup || events.cloudTrail.region || events.sqs) return [];
  return [
    {
      path: 'changeEvents.cloudTrail.region',
      message: 'the region to ask CloudTrail in (or cloudTrail: {lookup: false})',
    },
  ];
}

/** The stacks a pool's workers plan and apply; every stack without a pool set is in `default`. */
export function stacksOfPool<S extends { pool: string }>(config: { stacks: S[] }, pool: string): S[] {
  return config.stacks.filter((s) => s.pool === pool);
}

/**
 * Why a command for one pool's workers (`what`: "`driftgate worker` takes the jobs of") cannot run for
 * `pool` under this config; none when it can.
 */
export function workerPoolIssues(
  config: Pick<DriftgateConfig, 'runners' | 'stacks'>,
  pool: string,
  what: string,
): ConfigIssue[] {
  if (config.runners?.type !== 'workers')
    return [
      {
        path: 'runners.type',
        message: `${what} a control plane with runners: {type: workers}; with runners: {type: local} (the default) serve runs terraform itself`,
      },
    ];
  // A worker of a pool no stack is in would wait for jobs that never come.
  const pools = configuredPools(config.stacks);
  if (!pools.includes(pool))
    return [
      {
        path: '--pool',
        message: `pool "${pool}" has no stacks in this config (its pools: ${pools.join(', ') || 'none'}): a typo, or a config that disagrees with the control plane's`,
      },
    ];
  return [];
}

const inside = (dir: string, parent: string) => {
  const rel = relative(parent, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The run-as user's dir must be apart from the data dir: the data dir (store, artifacts, Git clones) stays
 * closed to that user. A Git stack's checkout is copied into the user's dir for each job.
 */
export function runAsIssues(config: Pick<DriftgateConfig, 'runAs' | 'dataDir'>): ConfigIssue[] {
  const { runAs } = config;
  if (!runAs) return [];
  if (inside(runAs.dir, config.dataDir) || inside(config.dataDir, runAs.dir))
    return [
      {
        path: 'runners.runAs.dir',
        message: `${runAs.dir} overlaps the data dir ${config.dataDir}: the user terraform runs as must not reach driftgate's own files (leave it out for ${config.dataDir}-terraform)`,
      },
    ];
  return [];
}

/**
 * The terraform container reaches the shared dir and nothing else of the worker's: the data dir must be
 * apart from it, and every stack dir terraform runs in must be inside it (stacks from Git are copied
 * there for each job).
 */
export function terraformContainerIssues(
  config: Pick<DriftgateConfig, 'terraformContainer' | 'runAs' | 'dataDir' | 'stacks' | 'terraform'>,
): ConfigIssue[] {
  const shared = config.terraformContainer?.dir;
  if (!shared) return [];
  const issues: ConfigIssue[] = [];
  if (config.runAs)
    issues.push({
      path: 'runners.terraformContainer',
      message:
        'set runAs (terraform as another user of this host) or terraformContainer (in a container beside the worker), not both',
    });
  if (inside(shared, config.dataDir) || inside(config.dataDir, shared))
    issues.push({
      path: 'runners.terraformContainer.dir',
      message: `${shared} overlaps the data dir ${config.dataDir}: the terraform container must not reach the worker's own files`,
    });
  if (!inside(config.terraform.pluginCacheDir, shared))
    issues.push({
      path: 'terraform.pluginCacheDir',
      message: `${config.terraform.pluginCacheDir} is outside runners.terraformContainer.dir, where the terraform container cannot write it (leave it out for ${shared}/plugin-cache)`,
    });
  const unreachable = config.stacks.filter((s) => !s.git && !inside(s.dir, shared)).map((s) => s.name);
  if (unreachable.length)
    issues.push({
      path: 'runners.terraformContainer.dir',
      message: `stacks ${unreachable.join(', ')} are local dirs outside ${shared}, which the terraform container cannot reach: take them from Git (source.git), or put them inside it`,
    });
  return issues;
}

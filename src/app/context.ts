import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createArtifactStore } from '../adapters/artifacts/create-artifact-store.js';
import { createGitSources } from '../adapters/git/git-sources.js';
import { sandboxedCheckouts } from '../adapters/git/sandboxed-checkouts.js';
import { openStore, storeOwnerVariable } from '../adapters/store/open-store.js';
import { createTerraformRunner } from '../adapters/terraform/runner.js';
import { createContainerRunner } from '../adapters/terraform/container-client.js';
import {
  currentIdentity,
  prepareSandbox,
  type RunAsSandbox,
  sweepLeftovers,
  runAsRefusal,
  type Sandbox,
} from '../adapters/terraform/run-as.js';
import { prepareSharedDir, type SharedDir } from '../adapters/terraform/shared-dir.js';
import { keptFromTerraform } from '../config/environment.js';
import type { DriftgateConfig } from '../config/schema.js';
import type { Stack } from '../domain/stack.js';
import { ConfigError, DataDirError } from '../domain/errors.js';
import { buildPolicyInput, compilePolicies, evaluatePolicies } from '../domain/policy/index.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { createSecretRegistry, type SecretRegistry } from '../logging/secret-registry.js';
import type { Redactor } from '../domain/plan/model.js';
import { createRedactor } from '../domain/plan/redact.js';
import { stackConfigSecrets, type VarFileText } from '../domain/stack-secrets.js';
import type { ServiceDeps } from '../services/runtime/deps.js';
import type { GitSources } from '../ports/git.js';
import type { Store } from '../ports/store.js';
import { createEventBus } from '../services/runtime/event-bus.js';

export interface AppContext {
  config: DriftgateConfig;
  deps: ServiceDeps;
  /** Runs and Slack-side state: one SQLite file, or the Postgres database several processes share. */
  store: Store;
  /** The stacks' Git sources; with `runners.runAs`, terraform gets each checkout as a copy its user owns. */
  git: GitSources;
  logger: Logger;
  stack(name: string): Stack | undefined;
  close(): Promise<void>;
}

export interface AppContextOptions {
  env: Record<string, string | undefined>;
  now?: () => Date;
  /** Where logs go; default stderr. */
  logDestination?: NodeJS.WritableStream;
  /** The log format and level; default JSON at the config's `log.level`. */
  log?: { format: 'json' | 'human'; level: string };
  /**
   * Migrate a Postgres schema as its owner role when `env` holds the owner's URL (serve's first start);
   * otherwise the store is opened with the role of `store.url` only.
   */
  ownerMayMigrate?: boolean;
}

/**
 * driftgate runs `concurrency` terraform processes at once. A Go runtime sized to its share of the cores
 * spends less CPU on parallel GC and idle spinning than one sized to the whole machine; an operator's
 * own GOMAXPROCS (or a stack's env) still wins.
 */
function goMaxProcs(concurrency: number): number {
  return Math.max(1, Math.floor(availableParallelism() / concurrency));
}

/** The config's policies, compiled once (the loader already refused any that do not compile). */
function policyEvaluator(config: DriftgateConfig): ServiceDeps['evaluatePolicies'] {
  if (config.policies.length === 0) return undefined;
  const compiled = compilePolicies(config.policies);
  if (!compiled.ok)
    throw new ConfigError(
      compiled.issues.map((i) => ({ path: `policies (rule "${i.rule}").${i.field}`, message: i.message })),
    );
  const { policy } = compiled;
  return (plan, redactor, stack, kind, changes, causes) =>
    evaluatePolicies(policy, buildPolicyInput(plan, redactor, stack, kind, changes, causes));
}

/** driftgate's own credentials: never in terraform's environment (a provider or module would see them). */
export const OWN_SECRETS: readonly string[] = keptFromTerraform();

/** The variables holding driftgate's own secrets for this config: fixed names, routing keys, Git tokens. */
export function ownSecretNames(
  config: Pick<DriftgateConfig, 'pagerduty' | 'stacks' | 'changeEvents' | 'store'>,
): string[] {
  const owner = storeOwnerVariable(config);
  return [
    ...OWN_SECRETS,
    ...(owner ? [owner] : []),
    ...(config.changeEvents?.secretEnv ? [config.changeEvents.secretEnv] : []),
    ...(config.pagerduty?.routing.map((r) => r.routingKeyEnv) ?? []),
    ...config.stacks.flatMap((s) => (s.git?.tokenEnv ? [s.git.tokenEnv] : [])),
  ];
}

/**
 * The environment terraform runs in: the process's, less driftgate's own secrets (Slack and GitHub
 * credentials, a worker's pool token, PagerDuty routing keys, Git tokens, the change events' push secret,
 * the store owner role's URL) and any variable holding the Postgres store's URL (a module that could write
 * the store could write approvals). A stack that needs one sets it in its `env`.
 */
export function terraformBaseEnv(
  config: Pick<DriftgateConfig, 'pagerduty' | 'stacks' | 'changeEvents' | 'store'>,
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const own = new Set(ownSecretNames(config));
  const storeUrl = config.store?.type === 'postgres' ? config.store.url : undefined;
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => !own.has(name) && value !== storeUrl));
}

/**
 * Each stack's config secrets (vars, env, backend config, varFiles, `${ENV}` values), masked from the
 * first command. A varFile that cannot be read yet (a Git stack's, before checkout) adds nothing here.
 */
export async function configSecrets(
  config: Pick<DriftgateConfig, 'stacks' | 'interpolated'>,
): Promise<Map<string, Redactor>> {
  const out = new Map<string, Redactor>();
  for (const stack of config.stacks) {
    const files: VarFileText[] = [];
    for (const path of stack.varFiles) {
      const text = await readFile(path, 'utf8').catch(() => undefined);
      if (text !== undefined) files.push({ path, text });
    }
    const secrets = stackConfigSecrets(stack, files, config.interpolated);
    if (secrets.size > 0) out.set(stack.name, createRedactor(secrets));
  }
  return out;
}

/**
 * With `runners.runAs`: the user terraform runs as, its dir laid out; a process that cannot switch to it
 * does not start (it would run terraform as itself, with no boundary, while the config says otherwise).
 */
export async function runAsSandbox(
  config: DriftgateConfig,
  options: { logger: Pick<Logger, 'warn'>; now?: () => Date },
): Promise<RunAsSandbox | undefined> {
  if (!config.runAs) return undefined;
  const refusal = runAsRefusal(config.runAs, await currentIdentity());
  if (refusal) throw new ConfigError([{ path: 'runners.runAs', message: refusal }], config.file);
  const sandbox = await prepareSandbox(config.runAs, config.terraform.pluginCacheDir);
  // Older than twice the longest a check or apply may take: the process that made it is gone.
  const { plan, apply, killGrace } = config.terraform.timeouts;
  const staleBefore = (options.now?.() ?? new Date()).getTime() - 2 * (plan + apply + 2 * killGrace);
  const { removed, failed } = await sweepLeftovers(config.runAs, staleBefore);
  if (removed.length)
    options.logger.warn({ removed }, 'removed run dirs and checkout copies a process that stopped left');
  if (failed.length) options.logger.warn({ failed }, 'run dirs or checkout copies a process that stopped left stay');
  return sandbox;
}

/**
 * The stacks' Git sources, their clones in the data dir; given terraform's `sandbox` (runAs or the
 * terraform container), terraform gets each checkout as a copy in it, and never the clone.
 */
export function stackGitSources(
  config: Pick<DriftgateConfig, 'dataDir'>,
  options: { env: Record<string, string | undefined>; logger: Logger },
  sandbox: Pick<Sandbox, 'takeIn'> | undefined,
): GitSources {
  const git = createGitSources({ dataDir: config.dataDir, env: options.env, logger: options.logger });
  return sandbox ? sandboxedCheckouts(git, sandbox) : git;
}

/** With `runners.terraformContainer`: the dir this worker shares with the terraform container, laid out. */
export async function sharedTerraformDir(config: DriftgateConfig): Promise<SharedDir | undefined> {
  if (!config.terraformContainer) return undefined;
  return prepareSharedDir(config.terraformContainer.dir, config.terraform.pluginCacheDir);
}

/**
 * terraform as this process runs it: its environment less driftgate's secrets, its output masked, and as
 * `runners.runAs` when set (a process that cannot switch to that user does not start), or, on a worker
 * given `shared` (from sharedTerraformDir), in the terraform container beside it. serve and check read the
 * same config and run terraform themselves: the container is a worker pod's.
 */
export async function buildTerraformRunner(
  config: DriftgateConfig,
  options: {
    env: Record<string, string | undefined>;
    secrets: Pick<ServiceDeps['secrets'], 'redact'>;
    logger: Logger;
    concurrency: number;
    shared?: SharedDir;
    /** From runAsSandbox; laid out here when not given. */
    runAs?: RunAsSandbox;
  },
) {
  const user = options.runAs ?? (await runAsSandbox(config, options));
  const runAs = user ? { sandbox: user, initStampDir: join(config.dataDir, 'init-stamps') } : undefined;
  const { shared } = options;
  const container =
    shared && config.terraformContainer
      ? {
          sandbox: shared,
          initStampDir: join(config.dataDir, 'init-stamps'),
          runProcess: createContainerRunner(config.terraformContainer.socket),
        }
      : undefined;
  return createTerraformRunner({
    binary: config.terraform.binary,
    timeouts: config.terraform.timeouts,
    pluginCacheDir: config.terraform.pluginCacheDir,
    outputLimitBytes: config.terraform.outputLimitBytes,
    env: { GOMAXPROCS: String(goMaxProcs(options.concurrency)), ...terraformBaseEnv(config, options.env) },
    redact: (text, stack) => options.secrets.redact(text, stack),
    logger: options.logger,
    ...(runAs ? { runAs } : {}),
    ...(container ? { container } : {}),
  });
}

/**
 * What every driftgate process that runs terraform starts with: its data and work dirs (0700), the
 * stacks' config secrets, and a logger that masks them.
 */
export async function processBasics(
  config: DriftgateConfig,
  options: Pick<AppContextOptions, 'log' | 'logDestination'>,
): Promise<{ workDir: string; secrets: SecretRegistry<Redactor>; logger: Logger }> {
  const workDir = join(config.dataDir, 'work');
  await writableDataDir(config, workDir);
  const secrets = createSecretRegistry({ base: await configSecrets(config) });
  const logger = createLogger({
    level: options.log?.level ?? config.log.level,
    format: options.log?.format ?? 'json',
    destination: options.logDestination ?? process.stderr,
    redact: (line, stack) => secrets.redact(line, stack),
  });
  return { workDir, secrets, logger };
}

/** Makes the data dir and its work dir (0700), or says which dir, why, and how to give driftgate one. */
async function writableDataDir(config: DriftgateConfig, workDir: string): Promise<void> {
  try {
    await mkdir(workDir, { recursive: true, mode: 0o700 });
    // Both may exist already (a repository mounted read-only with a .driftgate in it).
    await access(config.dataDir, constants.W_OK);
    await access(workDir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS' && code !== 'ENOTDIR' && code !== 'EEXIST') throw err;
    throw new DataDirError(config.dataDir, code, config.dataDirSetBy ?? 'dataDir', process.getuid?.());
  }
}

/** The composition root: every adapter built from the config, once. */
export async function createAppContext(config: DriftgateConfig, options: AppContextOptions): Promise<AppContext> {
  const now = options.now ?? (() => new Date());
  const { workDir, secrets, logger } = await processBasics(config, options);
  const store = await openStore(config, {
    now,
    ...(options.ownerMayMigrate ? { env: options.env } : {}),
    onAuditExposed: (reasons) =>
      logger.warn(
        { reasons },
        'the audit trail is not protected from the processes that write it: give the schema an owner role of its own (docs/production.md: "Two database roles")',
      ),
  });
  const artifacts = await createArtifactStore(config.artifacts, { dataDir: config.dataDir, env: options.env });
  const runAs = await runAsSandbox(config, { logger, now });
  const terraform = await buildTerraformRunner(config, {
    env: options.env,
    secrets,
    logger,
    concurrency: config.defaults.concurrency,
    ...(runAs ? { runAs } : {}),
  });
  const bus = createEventBus((err, event) =>
    logger.error({ err, event: event.type, stack: event.stack }, 'event handler failed'),
  );
  // serve's re-discovery replaces config.stacks: the index follows it.
  let indexed = { stacks: config.stacks, byName: new Map(config.stacks.map((s) => [s.name, s])) };
  const evaluatePolicies = policyEvaluator(config);
  const deps: ServiceDeps = {
    store,
    artifacts,
    terraform,
    bus,
    logger,
    secrets,
    now,
    workDir,
    timeouts: config.terraform.timeouts,
    maxPlanAgeMs: config.defaults.maxPlanAge,
    lockTtlMs: config.defaults.lockTtl,
    notConvergingAfter: config.defaults.notConvergingAfter,
    ...(evaluatePolicies
      ? { evaluatePolicies, policyDigest: createHash('sha256').update(JSON.stringify(config.policies)).digest('hex') }
      : {}),
  };
  return {
    config,
    deps,
    store,
    git: stackGitSources(config, { env: options.env, logger }, runAs),
    logger,
    stack: (name) => {
      if (indexed.stacks !== config.stacks)
        indexed = { stacks: config.stacks, byName: new Map(config.stacks.map((s) => [s.name, s])) };
      return indexed.byName.get(name);
    },
    close: () => store.close(),
  };
}

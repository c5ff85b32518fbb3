import { headOf } from '../adapters/git/source-head.js';
import type { CheckoutSourceHead } from '../config/discover-in-source.js';
import type { DriftgateConfig } from '../config/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import type { GitSources } from '../ports/git.js';
import type { Stack } from '../domain/stack.js';
import type { ServiceDeps } from '../services/runtime/deps.js';
import type { Scheduler } from '../services/runtime/scheduler.js';
import { configSecrets, type AppContext } from './context.js';
import type { Logger } from '../ports/logger.js';

/** The config loaded again, its `discover` rules matched through `checkoutHead`: the command's own loader. */
export type ReloadConfig = (checkoutHead: CheckoutSourceHead) => Promise<DriftgateConfig>;

export interface RediscoveryOptions {
  reload: ReloadConfig;
  /** serve's clones: the fetch that tells whether the head moved is the one its checks share. */
  git: GitSources;
  scheduler: Pick<Scheduler<unknown>, 'replaceStacks'>;
  intervalMs: number;
}

/** The top-level source, as the clones know it. */
function sourceOf(config: DriftgateConfig) {
  const { url, branch, tokenEnv } = config.source!.git;
  return { url, branch, ...(tokenEnv ? { tokenEnv } : {}) };
}

/** Registers the config secrets of stacks found after the start, as the start did for the others. */
async function addSecrets(secrets: Pick<ServiceDeps['secrets'], 'keep'>, stacks: Stack[], config: DriftgateConfig) {
  for (const [name, redactor] of await configSecrets({ stacks, interpolated: config.interpolated ?? [] }))
    secrets.keep(name, redactor);
}

export interface Rediscovery {
  /** No look after this; resolves once the one under way is done. */
  stop(): Promise<void>;
}

/**
 * `discover` on `source.git` while serve runs: the branch is fetched every `intervalMs`, and when its head
 * moved the config is loaded again there. Stacks a commit added are scheduled, those it removed no longer
 * are; the stacks kept stay as they were (a change to driftgate.yml itself needs a restart). A look that
 * fails (the repository out of reach, the config now invalid) is logged once per head, and the stacks
 * known are kept.
 */
export function watchDiscovery(context: AppContext, options: RediscoveryOptions): Rediscovery {
  const { config, logger, store, deps } = context;
  const source = sourceOf(config);
  const { url, branch } = source;
  let known = config.discoveredAt;
  let failedAt: string | undefined;

  const apply = async (next: DriftgateConfig) => {
    const before = new Set(config.stacks.map((s) => s.name));
    const found = new Set(next.stacks.map((s) => s.name));
    const added = next.stacks.filter((s) => !before.has(s.name));
    const removed = config.stacks.filter((s) => !found.has(s.name)).map((s) => s.name);
    if (added.length === 0 && removed.length === 0) return;
    await addSecrets(deps.secrets, added, next);
    for (const stack of added) await store.upsertStack(stack.name);
    // The one list every entry point reads (context.stack, Slack, the agent API): replaced, not edited in place.
    config.stacks = [...config.stacks.filter((s) => found.has(s.name)), ...added];
    await options.scheduler.replaceStacks(config.stacks);
    logger.info(
      { commit: next.discoveredAt, added: added.map((s) => s.name), removed },
      `discover: ${added.length} stack(s) added, ${removed.length} removed at ${branch} ${next.discoveredAt?.slice(0, 12)}`,
    );
  };

  const lookOnce = async () => {
    const head = await options.git
      .checkout(source)
      .fetchHead()
      .catch((err: unknown) => {
        logger.warn(
          { error: errorMessage(err) },
          `discover: cannot fetch ${branch} of ${url}; keeping the stacks known`,
        );
        return undefined;
      });
    if (!head || head.sha === known || head.sha === failedAt) return;
    try {
      const next = await options.reload((ref) => headOf(options.git)(ref));
      await apply(next);
      known = next.discoveredAt;
      failedAt = undefined;
    } catch (err) {
      failedAt = head.sha;
      const issues = err instanceof ConfigError ? err.issues : undefined;
      logger.error(
        { commit: head.sha, error: errorMessage(err), ...(issues ? { issues } : {}) },
        `discover: the stacks cannot be found again at ${branch} ${head.sha.slice(0, 12)}; keeping the ${config.stacks.length} known`,
      );
    }
  };

  let current: Promise<void> | undefined;
  const look = () => {
    current ??= lookOnce().finally(() => {
      current = undefined;
    });
    return current;
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => void look().finally(next), options.intervalMs);
  };
  next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/**
 * A worker's stacks, from its own config: a job for a stack it does not know (serve found it in a newer
 * commit) has the config loaded again at the branch head, once per head, before it is refused.
 */
export function stacksFoundAgain(
  config: DriftgateConfig,
  options: {
    reload: ReloadConfig;
    git: GitSources;
    secrets: Pick<ServiceDeps['secrets'], 'keep'>;
    logger: Logger;
  },
): (name: string) => Promise<Stack | undefined> {
  const byName = new Map(config.stacks.map((s) => [s.name, s]));
  const source = sourceOf(config);
  let looked = config.discoveredAt;
  let current: Promise<void> | undefined;
  const lookOnce = async () => {
    const head = await options.git.checkout(source).fetchHead();
    if (head.sha === looked) return;
    looked = head.sha;
    const next = await options.reload((ref) => headOf(options.git)(ref));
    const added = next.stacks.filter((s) => !byName.has(s.name));
    await addSecrets(options.secrets, added, next);
    for (const stack of added) byName.set(stack.name, stack);
    if (added.length)
      options.logger.info({ commit: next.discoveredAt, added: added.map((s) => s.name) }, 'discover: stacks added');
  };
  return async (name) => {
    if (!byName.has(name)) {
      current ??= lookOnce()
        .catch((err: unknown) =>
          options.logger.warn({ error: errorMessage(err) }, 'discover: cannot find stacks again'),
        )
        .finally(() => {
          current = undefined;
        });
      await current;
    }
    return byName.get(name);
  };
}

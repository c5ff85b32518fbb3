import { type StateVersion, sameState, stateResources } from '../../domain/change-events/state-resources.js';
import { indexEntriesOfPlan, type ResourceIndex } from '../../domain/change-events/resource-index.js';
import { stateObjectEntries } from '../../domain/change-events/state-object.js';
import { errorMessage } from '../../domain/errors.js';
import type { PlanJson } from '../../domain/plan/schema.js';
import type { Stack } from '../../domain/stack.js';
import type { ServiceDeps } from '../runtime/deps.js';

/**
 * Keeps the change-event resource index current as plans run, and in the store so a restart keeps it. A
 * plan with changes shows the prior state at no extra cost; a clean plan runs no `show -json`, so the
 * state is pulled from the backend (no provider starts) and walked only when its serial or lineage moved.
 * Indexing never fails a check: what goes wrong costs the index an update, and is logged.
 */
export interface ResourceIndexKeeper {
  /** Fills the index from the store (at start); answers the newest save it read, if any. */
  load(): Promise<Date | undefined>;
  /** Whether the stack was ever indexed, from a plan or its state, by this process or one before it. */
  has(stack: string): boolean;
  fromPlan(stack: Stack, plan: PlanJson): Promise<void>;
  /** `none`: the stack was never applied (no state); `failed` was logged. */
  fromState(stack: Stack, signal?: AbortSignal): Promise<FromState>;
}

export type FromState = 'indexed' | 'unchanged' | 'none' | 'failed';

/** Where a stack's state is an S3 object (its backend block and backendConfig say), if it is one. */
export type StateObjectOf = (stack: Stack) => Promise<{ bucket: string; key: string } | undefined>;

export function createResourceIndexKeeper(
  deps: Pick<ServiceDeps, 'store' | 'terraform' | 'logger'> & { stateObjectOf?: StateObjectOf },
  index: ResourceIndex,
): ResourceIndexKeeper {
  const versions = new Map<string, StateVersion>();

  /** The stack's state object is indexed with its resources; not knowing where it is costs only that entry. */
  const stateEntries = async (stack: Stack) => {
    try {
      return stateObjectEntries(await deps.stateObjectOf?.(stack));
    } catch (err) {
      deps.logger.debug({ stack: stack.name, err: errorMessage(err) }, 'where the state is kept was not read');
      return [];
    }
  };
  const save = async (stack: Stack, version: StateVersion, found: { address: string; identifiers: string[] }[]) => {
    const resources = [...found, ...(await stateEntries(stack))];
    index.replaceStack(stack.name, resources);
    versions.set(stack.name, version);
    await deps.store.saveResourceIndex({ stack: stack.name, ...version, resources });
  };
  const failed = (stack: string, source: string) => (err: unknown) =>
    deps.logger.warn({ stack, source, err: errorMessage(err) }, 'resource index not updated');

  return {
    async load() {
      let newest: Date | undefined;
      for (const entry of await deps.store.listResourceIndexes()) {
        index.replaceStack(entry.stack, entry.resources);
        versions.set(entry.stack, {
          ...(entry.serial !== undefined ? { serial: entry.serial, lineage: entry.lineage } : {}),
        });
        if (!newest || entry.updatedAt > newest) newest = entry.updatedAt;
      }
      return newest;
    },
    has: (stack) => versions.has(stack),
    async fromPlan(stack, plan) {
      // The prior state has no serial: the next clean plan reads the state once to learn it.
      await save(stack, {}, indexEntriesOfPlan(plan)).catch(failed(stack.name, 'plan'));
    },
    async fromState(stack, signal) {
      try {
        const text = await deps.terraform.statePull(stack, signal ? { signal } : {});
        // A stack never applied has no state: `state pull` prints nothing.
        if (text.trim() === '') return 'none';
        const found = stateResources(parseState(text));
        if (sameState(versions.get(stack.name), found.version)) return 'unchanged';
        await save(stack, found.version, found.resources);
        return 'indexed';
      } catch (err) {
        if (!signal?.aborted) failed(stack.name, 'state')(err);
        return 'failed';
      }
    },
  };
}

/** JSON.parse's message quotes the text, and a state holds secrets: only the fact is kept. */
function parseState(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`state pull printed ${text.length} characters that are not JSON`);
  }
}

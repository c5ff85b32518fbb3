import type { ConfigIssue } from '../domain/errors.js';
import type { Stack } from '../domain/stack.js';
import { type LocatedStack, sharedStateIssues, stateLocation } from '../domain/state-location.js';
import { readRootModule } from './root-module.js';

/**
 * Stacks whose backend settings (their *.tf backend block with backendConfig over it) and workspace lead
 * to one state. Only stacks with a dir here: a Git-sourced one is read in its checkout.
 */
export async function sharedStateConfigIssues(stacks: readonly Stack[]): Promise<ConfigIssue[]> {
  const located = await Promise.all(
    stacks.map(async (stack): Promise<LocatedStack | undefined> => {
      const { backend } = await readRootModule(stack.dir);
      const location = stateLocation(backend, stack);
      return location
        ? { name: stack.name, ...(stack.configKey ? { configKey: stack.configKey } : {}), location }
        : undefined;
    }),
  );
  return sharedStateIssues(located.filter((s): s is LocatedStack => s !== undefined));
}

/** The S3 object a stack's state is kept in, as its root module's backend block and backendConfig say. */
export async function stateObjectOf(
  stack: Pick<Stack, 'dir' | 'workspace' | 'backendConfig'>,
): Promise<{ bucket: string; key: string } | undefined> {
  const { backend } = await readRootModule(stack.dir);
  return stateLocation(backend, stack)?.s3Object;
}

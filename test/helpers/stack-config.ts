import type { Stack } from '../../src/domain/stack.js';

/**
 * A resolved stack as loadConfig would produce it, for tests that build stacks in code; with
 * `emptyState: plan`, since such tests plan never-applied stacks and take their creates as the change.
 */
export function stackConfig(name: string, dir: string, overrides: Partial<Stack> = {}): Stack {
  return {
    name,
    dir,
    schedule: '0 * * * *',
    vars: {},
    varFiles: [],
    env: {},
    backendConfig: {},
    labels: [],
    mode: 'alert',
    pool: 'default',
    planEmptyState: true,
    ...overrides,
  };
}

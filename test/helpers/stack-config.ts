import type { StackConfig } from '../../src/config/schema.js';

/** A resolved stack as loadConfig would produce it, for tests that build stacks in code. */
export function stackConfig(name: string, dir: string, overrides: Partial<StackConfig> = {}): StackConfig {
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
    ...overrides,
  };
}

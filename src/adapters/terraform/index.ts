export { createTerraformRunner, type TerraformRunnerOptions } from './runner.js';
export type { TerraformLogger } from './exec.js';

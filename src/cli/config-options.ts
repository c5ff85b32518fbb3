import { discoveryCheckouts } from '../app/cli/config-discovery.js';
import type { LoadConfigOptions } from '../config/load.js';
import type { CliIo } from './io.js';

/** How a command that uses the stacks loads its config: `--config`, and discovery in `source.git`. */
export function configOptions(file: string | undefined, io: CliIo): LoadConfigOptions {
  return { file, cwd: io.cwd, env: io.env, checkoutHead: discoveryCheckouts(io.env) };
}

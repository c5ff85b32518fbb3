import { refuseHeldVariables } from './held-variables.js';
import { resolveBinary } from '../adapters/terraform/binary.js';
import { serveTerraformContainer } from '../adapters/terraform/container-server.js';
import { DEFAULT_OWNER_URL_ENV } from '../config/schema.js';
import { TerraformBinaryMissingError } from '../domain/errors.js';
import type { Logger } from '../logging/logger.js';
import { OWN_SECRETS } from './context.js';

/**
 * What the terraform container never holds, nor passes to terraform: driftgate's own secrets (the pool's
 * token among them), the store's URLs (by their usual names, and any Postgres URL by its value) and a Git
 * token (the worker checks out the code; terraform gets a copy). It reads no config, so it cannot learn the
 * names a config gives these: it goes by the names driftgate uses by default, and by the store URL's shape.
 */
const NEVER_HELD = new Set([...OWN_SECRETS, 'DATABASE_URL', DEFAULT_OWNER_URL_ENV, 'GIT_TOKEN']);

export function forbiddenInTerraformContainer(name: string, value: string): boolean {
  return NEVER_HELD.has(name) || /^postgres(ql)?:\/\//i.test(value.trim());
}

export interface TerraformRunnerOptions {
  dir: string;
  socket: string;
  /** `terraform`, `tofu` or a path: the only program it runs. */
  binary: string;
  env: Record<string, string | undefined>;
  logger: Logger;
}

/**
 * `driftgate terraform-runner`: the second container of a worker pod. It runs the worker's terraform
 * commands under its own uid, with none of the worker's secrets, so that a module cannot read the worker
 * (its token, its environment, its data dir); it refuses to start when its own environment holds one,
 * naming the variable.
 */
export async function startTerraformRunner(options: TerraformRunnerOptions): Promise<{ close(): Promise<void> }> {
  const held = Object.entries(options.env)
    .filter(([name, value]) => value !== undefined && forbiddenInTerraformContainer(name, value))
    .map(([name]) => name)
    .sort();
  refuseHeldVariables(
    held,
    "the terraform container must hold none of driftgate's secrets: remove it from this container's environment",
  );
  const binary = await resolveBinary(options.binary, options.env);
  if (!binary) throw new TerraformBinaryMissingError(options.binary);
  // What terraform writes (`.terraform`, a saved plan) the worker reads and removes: it is in the group.
  process.umask(0o007);
  const server = await serveTerraformContainer({
    socket: options.socket,
    dir: options.dir,
    binary,
    forbidden: forbiddenInTerraformContainer,
    logger: options.logger,
  });
  options.logger.info(
    { socket: options.socket, dir: options.dir, binary, uid: process.getuid?.() },
    'driftgate terraform-runner taking commands from its worker',
  );
  return server;
}

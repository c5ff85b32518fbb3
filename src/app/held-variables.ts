import { ConfigError } from '../domain/errors.js';

/**
 * A process that must not hold some variables (a worker, the terraform container) refuses to start when
 * it does: one issue per variable, named, never its value, each with the same fix.
 */
export function refuseHeldVariables(held: readonly string[], message: string, file?: string): void {
  if (held.length === 0) return;
  throw new ConfigError(
    held.map((name) => ({ path: `environment ${name}`, message })),
    file,
  );
}

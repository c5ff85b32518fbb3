import { type Env, type ListenAddress, readEnvironment } from '../config/environment.js';
import { ConfigError } from '../domain/errors.js';

export type { ListenAddress };

/**
 * `METRICS_ADDRESS`: where `/metrics` listens when it must not share the public port (Slack's requests
 * come in there; Prometheus should scrape from inside the cluster only). Unset: `/metrics` stays on the
 * main port.
 */
export function metricsAddressFrom(env: Env): ListenAddress | undefined {
  const { values, issues } = readEnvironment(env, ['METRICS_ADDRESS']);
  if (issues.length) throw new ConfigError(issues);
  return values.METRICS_ADDRESS;
}

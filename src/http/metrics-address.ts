import { ConfigError } from '../domain/errors.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * `METRICS_ADDRESS`: where `/metrics` listens when it must not share the public port (Slack's requests
 * come in there; Prometheus should scrape from inside the cluster only). `host:port`, `[v6]:port` or
 * `:port` (all interfaces). Unset: `/metrics` stays on the main port.
 */
export function metricsAddressFrom(env: Record<string, string | undefined>): ListenAddress | undefined {
  const raw = env.METRICS_ADDRESS?.trim();
  if (!raw) return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(raw);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65_535) {
    throw new ConfigError([
      {
        path: 'METRICS_ADDRESS',
        message: `"${raw}" is not an address to listen on: use host:port (127.0.0.1:9464), [::1]:9464 or :9464`,
      },
    ]);
  }
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

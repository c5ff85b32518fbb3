import type { ListenAddress } from '../http/metrics-address.js';
import { startHttpServer, type HealthChecks, type HttpMount, type HttpServer } from '../http/server.js';
import { createMetrics } from '../metrics/registry.js';

export interface ListenOptions {
  /** Port of /healthz and /readyz; 0 picks a free one. */
  port: number;
  /** Where `port` was set (`--port`, `PORT`), named when it cannot be listened on. */
  portSetting?: string;
  host?: string;
}

/** The ports driftgate listens on, taken first; routes and readiness are filled in once the rest runs. */
export interface ServeSockets {
  health: HttpServer;
  metricsServer?: HttpServer;
  metrics: ReturnType<typeof createMetrics>;
  mounts: HttpMount[];
  setReady(ready: HealthChecks['ready']): void;
  close(): Promise<void>;
}

export async function listen(options: ListenOptions, metricsAddress: ListenAddress | undefined): Promise<ServeSockets> {
  const metrics = createMetrics();
  const mounts: HttpMount[] = [];
  let ready: HealthChecks['ready'] = () => ({ ok: false, reason: 'starting' });
  const checks: HealthChecks = { live: () => true, ready: () => ready() };
  // With METRICS_ADDRESS, /metrics listens there only: not on the port Slack's requests come in on.
  const metricsServer = metricsAddress
    ? await startHttpServer({ ...metricsAddress, setting: 'METRICS_ADDRESS', checks, metrics: metrics.registry })
    : undefined;
  const health = await startHttpServer({
    port: options.port,
    host: options.host,
    setting: options.portSetting ?? 'port',
    ...(metricsServer ? {} : { metrics: metrics.registry }),
    mounts,
    checks,
  }).catch(async (err: unknown) => {
    await metricsServer?.close();
    throw err;
  });
  return {
    health,
    ...(metricsServer ? { metricsServer } : {}),
    metrics,
    mounts,
    setReady: (fn) => {
      ready = fn;
    },
    close: async () => {
      await health.close();
      await metricsServer?.close();
    },
  };
}

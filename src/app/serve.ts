import nodeCron from 'node-cron';
import type { DriftgateConfig } from '../config/schema.js';
import { startHealthServer, type HealthServer } from '../http/health-server.js';
import { checkStack, type CheckOutcome } from '../services/check-stack.js';
import { pruneArtifacts } from '../services/retention.js';
import { createScheduler, type Scheduler } from '../services/scheduler.js';
import { createAppContext, type AppContext } from './context.js';

export interface ServeOptions {
  env: Record<string, string | undefined>;
  /** Port of /healthz and /readyz; 0 picks a free one. */
  port: number;
  host?: string;
  now?: () => Date;
  logDestination?: NodeJS.WritableStream;
}

export interface RunningServe {
  context: AppContext;
  scheduler: Scheduler<CheckOutcome>;
  health: HealthServer;
  /** Graceful stop: no new checks, running plans get `defaults.shutdownTimeout`, the rest are interrupted. */
  stop(): Promise<void>;
}

/** `driftgate serve` without Slack: crash recovery, the scheduler, retention, health endpoints. */
export async function startServe(config: DriftgateConfig, options: ServeOptions): Promise<RunningServe> {
  const context = await createAppContext(config, options);
  const { logger, store, deps } = context;

  // Runs left planning or applying by a process that died; an interrupted apply blocks its stack.
  for (const run of store.recoverInterrupted()) {
    logger.warn({ runId: run.id, stack: run.stack, error: run.error }, 'run interrupted by an earlier stop');
  }
  for (const stack of config.stacks) store.upsertStack(stack.name);
  deps.bus.onAny((event) => logger.info({ event: event.type, stack: event.stack, runId: event.run.id }, 'event'));

  const scheduler = createScheduler<CheckOutcome>({
    stacks: config.stacks,
    concurrency: config.defaults.concurrency,
    jitterMs: config.defaults.jitter,
    logger,
    check: (stack, trigger, signal) => checkStack(deps, stack, { trigger, signal }),
  });
  scheduler.start();

  const retention = config.artifacts.retention;
  const retentionTask = retention
    ? nodeCron.schedule('17 3 * * *', () => {
        pruneArtifacts(deps, new Date(deps.now().getTime() - retention))
          .then((n) => logger.info({ removed: n }, 'artifact retention'))
          .catch((err: unknown) => logger.error({ err }, 'artifact retention failed'));
      })
    : undefined;

  let stopping = false;
  const health = await startHealthServer({
    port: options.port,
    host: options.host,
    checks: {
      live: () => true,
      ready: () => (stopping ? { ok: false, reason: 'shutting down' } : { ok: true }),
    },
  });
  logger.info({ stacks: config.stacks.length, port: health.port }, 'driftgate serving');

  return {
    context,
    scheduler,
    health,
    async stop() {
      if (stopping) return;
      stopping = true;
      await retentionTask?.stop();
      const { aborted, cancelled } = await scheduler.stop(config.defaults.shutdownTimeout);
      logger.info({ aborted, cancelled }, 'scheduler stopped');
      await health.close();
      context.close();
    },
  };
}

import type { ReloadConfig } from './rediscovery.js';
import type { ListenOptions } from './serve-sockets.js';

/** How `driftgate worker` is started: its environment, its pool, and its own health port. */
export interface WorkerOptions extends ListenOptions {
  env: Record<string, string | undefined>;
  pool: string;
  /** Jobs run at once; default `defaults.concurrency`. */
  concurrency?: number;
  now?: () => Date;
  logDestination?: NodeJS.WritableStream;
  log?: { format: 'json' | 'human'; level: string };
  /**
   * Aborted when the worker is asked to stop (its reason: `SIGTERM received`): a stop that comes while it
   * still waits for its control plane ends that wait instead of keeping the process up.
   */
  stopAsked?: AbortSignal;
  /** With `discover` on `source.git`: the config loaded again, for a stack found after the start. */
  rediscover?: ReloadConfig;
}

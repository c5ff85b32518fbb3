import type { ReloadConfig } from './rediscovery.js';
import type { ListenOptions } from './serve-ports.js';

/** How `driftgate worker` is started: its environment, its pool, and its own health port. */
export interface WorkerOptions extends ListenOptions {
  env: Record<string, string | undefined>;
  pool: string;
  /** Jobs run at once; default `defaults.concurrency`. */
  concurrency?: number;
  now?: () => Date;
  logDestination?: NodeJS.WritableStream;
  log?: { format: 'json' | 'human'; level: string };
  /** With `discover` on `source.git`: the config loaded again, for a stack found after the start. */
  rediscover?: ReloadConfig;
}

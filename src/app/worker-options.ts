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
}

/**
 * What happened during a soak, one JSON object a line, written as it happens into the kept directory: the
 * driver's actions, the faults with their targets, the processes' starts and ends, and at the end the
 * violations. A violation is read against it (`grep runId history.jsonl`).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';

export interface HistoryEvent {
  kind: string;
  [key: string]: unknown;
}

export interface History {
  readonly file: string;
  record(event: HistoryEvent): void;
  /** Every event recorded so far, in order (for the checks and the counts). */
  events(): readonly (HistoryEvent & { at: string; t: number })[];
  close(): Promise<void>;
}

export function openHistory(dir: string, now: () => number = Date.now): History {
  const file = join(dir, 'history.jsonl');
  const out: WriteStream = createWriteStream(file, { flags: 'a' });
  const started = now();
  const kept: (HistoryEvent & { at: string; t: number })[] = [];
  return {
    file,
    record(event) {
      const at = now();
      // `t`: seconds since the soak began, to read the history beside the processes' logs.
      const line = { at: new Date(at).toISOString(), t: Math.round((at - started) / 100) / 10, ...event };
      kept.push(line);
      out.write(`${JSON.stringify(line)}\n`);
    },
    events: () => kept,
    close: () => new Promise((resolve) => out.end(resolve)),
  };
}

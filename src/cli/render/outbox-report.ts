import { z } from 'zod';
import { formatDuration } from '../../domain/duration.js';
import type { DeadOutboxItem } from '../../ports/slack-store.js';
import { terminalSafe } from './policy-report.js';

const DAY_MS = 86_400_000;

/** How many of the outbox's dead items `driftgate status` shows (the newest); the rest are counted. */
export const DEAD_SHOWN = 5;

export const DeadOutboxJson = z
  .object({
    dead: z.number().describe('Slack messages and pages that failed for good and are kept (outboxDeadRetention)'),
    newest: z.array(
      z.object({
        id: z.number(),
        key: z.string().describe('the run or stack it was about'),
        method: z.string().describe('chat.postMessage, chat.update, pagerduty.enqueue, …'),
        attempts: z.number(),
        error: z.string(),
        at: z.iso.datetime().describe('when it was given up'),
      }),
    ),
  })
  .describe('the outbox: what driftgate could never deliver');
export type DeadOutboxJson = z.infer<typeof DeadOutboxJson>;

export function deadOutboxJson(dead: { total: number; items: readonly DeadOutboxItem[] }): DeadOutboxJson {
  return {
    dead: dead.total,
    newest: dead.items.map((i) => ({
      id: i.id,
      key: i.key,
      method: i.method,
      attempts: i.attempts,
      error: i.error,
      at: i.deadAt.toISOString(),
    })),
  };
}

/** Lines under the stacks when something was never delivered: a person decides whether it still matters. */
export function renderDeadOutbox(
  dead: { total: number; items: readonly DeadOutboxItem[] },
  now: Date,
  keptMs: number,
): string[] {
  if (dead.total === 0) return [];
  const kept = keptMs % DAY_MS === 0 ? `${keptMs / DAY_MS}d` : formatDuration(keptMs);
  const head = `outbox: ${dead.total} ${dead.total === 1 ? 'delivery' : 'deliveries'} failed for good (kept ${kept}, defaults.outboxDeadRetention)${dead.total > dead.items.length ? `; the newest ${dead.items.length}` : ''}:`;
  return [
    head,
    ...dead.items.map(
      (i) =>
        `    #${i.id} ${terminalSafe(i.method)} ${terminalSafe(i.key)}, ${formatDuration(Math.max(0, now.getTime() - i.deadAt.getTime()))} ago after ${i.attempts} ${i.attempts === 1 ? 'attempt' : 'attempts'}: ${terminalSafe(i.error.split('\n')[0] ?? '').slice(0, 300)}`,
    ),
  ];
}

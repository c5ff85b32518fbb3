import nodeCron from 'node-cron';
import type { Stack } from '../domain/stack.js';
import type { Logger } from '../logging/logger.js';

/** The next scheduled check of all stacks: which stack, and when (the jitter comes on top). */
export function nextScheduledCheck(
  stacks: Pick<Stack, 'name' | 'schedule'>[],
): { stack: string; at: Date } | undefined {
  let next: { stack: string; at: Date } | undefined;
  for (const stack of stacks) {
    // A task never started: it only computes its expression's next match.
    const task = nodeCron.createTask(stack.schedule, () => undefined);
    const at = task.getNextRuns(1)[0];
    void task.destroy();
    if (at && (!next || at < next.at)) next = { stack: stack.name, at };
  }
  return next;
}

export interface ServingAnnouncement {
  stacks: Pick<Stack, 'name' | 'schedule'>[];
  port: number;
  metricsPort?: number;
  slack: boolean;
  /** Why this serve does not run the schedule (a standby), when it does not. */
  standby?: boolean;
}

/**
 * The line a person starting serve looks for: what it serves, where, and when the first check runs. Without
 * Slack, said plainly: nothing is posted anywhere, and `/drift` and the buttons do not exist.
 */
export function announceServing(logger: Logger, what: ServingAnnouncement): void {
  const next = what.standby ? undefined : nextScheduledCheck(what.stacks);
  const schedules = [...new Set(what.stacks.map((s) => s.schedule))];
  logger.info(
    {
      stacks: what.stacks.length,
      port: what.port,
      ...(what.metricsPort ? { metricsPort: what.metricsPort } : {}),
      schedule: schedules.length === 1 ? schedules[0] : `${schedules.length} schedules`,
      ...(next ? { nextCheck: `${next.stack} at ${next.at.toISOString()}` } : {}),
      slack: what.slack ? 'on' : 'off',
    },
    'driftgate serving',
  );
  if (!what.slack)
    logger.warn(
      'Slack is not configured (SLACK_BOT_TOKEN is not set): drift found by the schedule is kept in the store and logged here only; nothing is posted, and /drift and the approval buttons are unavailable',
    );
}

import { formatCounts } from '../../domain/plan/render-text.js';
import { describeLockHolder } from '../../domain/run/lock-holder.js';
import type { StackLock } from '../../domain/run/model.js';
import { formatDuration } from '../../domain/duration.js';
import { type ReportedOutcome, statusText } from './check-report.js';

/** What `driftgate check` says on stderr while it runs, so `--json` keeps stdout to the report. */
export interface CheckProgress {
  started(stack: string): void;
  waiting(stack: string, holder: StackLock, timeoutMs: number): void;
  finished(outcome: ReportedOutcome, ms: number): void;
}

/**
 * On a terminal, a line as each stack starts and as it finishes; elsewhere (CI logs, a pipe) only the
 * finished ones. Errors are told once, in the report: a line here says only the status.
 */
export function checkProgress(
  stderr: NodeJS.WritableStream & { isTTY?: boolean },
  total: number,
  options: { noWaitHint: boolean },
): CheckProgress {
  let done = 0;
  const say = (line: string) => stderr.write(`${line}\n`);
  return {
    started(stack) {
      if (stderr.isTTY) say(`  ${stack}: planning…`);
    },
    waiting(stack, holder, timeoutMs) {
      say(
        `  ${stack}: waiting up to ${formatDuration(timeoutMs)} for its lock, held by ${describeLockHolder(holder)}${options.noWaitHint ? '; --no-wait fails at once instead' : ''}`,
      );
    },
    finished(outcome, ms) {
      done++;
      const counts =
        outcome.status === 'drifted' || outcome.status === 'pending_approval'
          ? ` ${formatCounts(outcome.analysis.counts)}`
          : '';
      say(`[${done}/${total}] ${outcome.stack}: ${statusText(outcome)}${counts} (${(ms / 1000).toFixed(1)}s)`);
    },
  };
}

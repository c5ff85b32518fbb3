import { errorMessage } from '../../../domain/errors.js';
import { formatCounts } from '../../../domain/plan/render-text.js';
import type { CheckOutcome } from '../../../services/check-stack.js';
import { truncate } from '../../blocks/escape.js';
import { plural } from '../../blocks/message.js';
import { renderAck } from '../../blocks/render-command-replies.js';
import type { SlackDeps } from '../deps.js';
import type { CommandHandler } from './handler.js';

/** Beyond this the summary says how many more: a `check all` of hundreds of stacks stays one message. */
const MAX_LINES = 40;

/** One line per stack, for the person who asked; the alerts themselves go to the stack's channel. */
export function outcomeLine(outcome: CheckOutcome): string {
  switch (outcome.status) {
    case 'no_changes':
      return `${outcome.stack}: in sync${outcome.resolved ? ' (the earlier drift is resolved)' : ''}`;
    case 'drifted':
      return `${outcome.stack}: drifted (${formatCounts(outcome.analysis.counts)})`;
    case 'pending_approval':
      return `${outcome.stack}: waiting for approval (${formatCounts(outcome.analysis.counts)})`;
    case 'errored':
      return `${outcome.stack}: failed: ${truncate(outcome.error, 300)}`;
    case 'interrupted':
      return `${outcome.stack}: interrupted before the plan finished`;
    case 'blocked':
      return `${outcome.stack}: blocked: ${truncate(outcome.reason, 300)}`;
  }
}

/**
 * `/drift check`: queue every stack first (ahead of scheduled checks), say so, then answer once more
 * when all are done. A stack already queued or running is not planned twice: the user gets its result.
 */
export const handleCheck: CommandHandler<'check', Pick<SlackDeps, 'scheduler' | 'store' | 'now'>> = async (
  deps,
  command,
  userId,
  tell,
) => {
  if (command.stacks.length === 0) return tell(renderAck('No stacks are configured, so there is nothing to check.'));
  const lines = command.stacks.map((name) => {
    deps.store.appendAudit({ at: deps.now(), actor: userId, action: 'check_requested', stack: name });
    return deps.scheduler
      .request(name, 'manual')
      .then(outcomeLine, (err: unknown) => `${name}: failed: ${truncate(errorMessage(err), 300)}`);
  });
  await tell(
    renderAck(
      `Queued ${plural(command.stacks.length, 'stack')}: ${truncate(command.stacks.join(', '), 500)}. Alerts go to each stack's channel.`,
    ),
  );
  const done = await Promise.all(lines);
  const more = done.length > MAX_LINES ? [`… and ${done.length - MAX_LINES} more`] : [];
  await tell(renderAck(`Check finished:\n${[...done.slice(0, MAX_LINES), ...more].join('\n')}`));
};

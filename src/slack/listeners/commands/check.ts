import { errorMessage } from '../../../domain/errors.js';
import { formatCounts } from '../../../domain/plan/render-text.js';
import type { CheckOutcome } from '../../../services/check/check-stack.js';
import { requestCheck } from '../../../services/operator/request-check.js';
import { truncate } from '../../blocks/escape.js';
import { plural } from '../../blocks/message.js';
import { NOT_VISIBLE, VISIBILITY_UNKNOWN, renderAck } from '../../blocks/render-command-replies.js';
import type { SlackDeps, ViewerDeps } from '../../slack-deps.js';
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

/** The line of a stack whose plans the person may not read: checked, and where its result went. */
export const hiddenOutcomeLine = (stack: string) => `${stack}: checked; its result went to its alert channel`;

/**
 * `/drift check`: queue every stack first (ahead of scheduled checks), say so, then answer once more
 * when all are done. A stack already queued or running is not planned twice: the user gets its result.
 * Anyone may ask for a check of a stack they name; its result is shown only for the stacks the person
 * may read (`deps.visibleTo`). `all` or a glob names stacks the person did not: it selects only those they may
 * see, so the answers never name the others.
 */
export const handleCheck: CommandHandler<'check', ViewerDeps & Pick<SlackDeps, 'scheduler'>> = async (
  deps,
  command,
  userId,
  tell,
) => {
  if (command.stacks.length === 0) return tell(renderAck('No stacks are configured, so there is nothing to check.'));
  let stacks = command.stacks;
  if (command.byPattern) {
    // Unknown: nothing is checked rather than stacks named to someone who may not see them.
    const maySee = await deps.visibleTo(userId).catch(() => undefined);
    if (!maySee) return tell(renderAck(VISIBILITY_UNKNOWN));
    stacks = stacks.filter((stack) => maySee.has(stack));
    if (stacks.length === 0)
      return tell(
        renderAck(`None of the stacks this selects is one you may see, so nothing was checked. ${NOT_VISIBLE}`),
      );
  }
  const lines: Promise<string>[] = [];
  for (const name of stacks) {
    const { outcome } = await requestCheck(deps, name, userId);
    lines.push(outcome.then(outcomeLine, (err: unknown) => `${name}: failed: ${truncate(errorMessage(err), 300)}`));
  }
  await tell(
    renderAck(
      `Queued ${plural(stacks.length, 'stack')}: ${truncate(stacks.join(', '), 500)}. Alerts go to each stack's channel.`,
    ),
  );
  const outcomes = await Promise.all(lines);
  // Asked after the checks: whoever joined the channel meanwhile sees it. Unknown: nothing is shown.
  const visible = await deps.visibleTo(userId).catch(() => new Set<string>());
  const done = outcomes.map((line, i) => {
    const stack = stacks[i]!;
    return visible.has(stack) ? line : hiddenOutcomeLine(stack);
  });
  const more = done.length > MAX_LINES ? [`… and ${done.length - MAX_LINES} more`] : [];
  await tell(renderAck(`Check finished:\n${[...done.slice(0, MAX_LINES), ...more].join('\n')}`));
};

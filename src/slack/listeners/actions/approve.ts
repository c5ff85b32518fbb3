import { approveAndApply, type ApproveAndApplyDeps } from '../../../services/approval/approve-and-apply.js';
import type { ApproveOutcome } from '../../../services/approval/approve-run.js';
import { renderAck, renderNotAllowed } from '../../blocks/render-command-replies.js';
import type { SlackMessage } from '../../blocks/message.js';
import type { ButtonClick } from '../../payloads.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/**
 * Approve & apply, after the ack: one call to approveAndApply, which checks (rules, groups, author, plan
 * age), audits, and starts the apply when this click completes the approvals. The person who clicked is
 * told its outcome at once; the run's message follows the apply's events (slack/notifier). The job ends
 * with the apply, so a shutdown waits for it.
 */
export async function handleApprove(
  deps: ApproveAndApplyDeps & Pick<SlackDeps, 'stack'>,
  click: ButtonClick,
  tell: Tell,
): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const { outcome, applying } = await approveAndApply(deps, found.stack, found.run.id, click.userId);
  try {
    await tell(renderOutcome(found.stack.name, outcome));
  } finally {
    await applying;
  }
}

function renderOutcome(stack: string, outcome: ApproveOutcome): SlackMessage {
  if (outcome.status === 'refused') return renderNotAllowed(outcome.message);
  const { have, need } = outcome.progress;
  if (outcome.status === 'recorded') return renderAck(`Your approval of ${stack} is recorded (${have}/${need}).`);
  return renderAck(`Approved (${have}/${need}): applying ${stack} now.`);
}

import { approveRun } from '../../../services/approve-run.js';
import { renderAck, renderNotAllowed } from '../../blocks/render-command-replies.js';
import type { ButtonClick } from '../../payloads.js';
import type { ApprovalServiceDeps } from '../../../services/approval-deps.js';
import type { SlackDeps } from '../deps.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/**
 * Approve & apply, after the ack. Every click is checked (rules, groups, author, plan age) by approveRun
 * and audited; a refused click changes nothing and is told why. The click that completes the approvals
 * starts the apply; of concurrent completing clicks the store's compare-and-set lets exactly one win.
 */
export async function handleApprove(
  deps: ApprovalServiceDeps & Pick<SlackDeps, 'stack' | 'messages' | 'apply'>,
  click: ButtonClick,
  tell: Tell,
): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const { stack } = found;
  const outcome = await approveRun(deps, stack, found.run.id, click.userId);

  if (outcome.status === 'refused') return tell(renderNotAllowed(outcome.message));
  if (outcome.status === 'recorded') {
    await deps.messages.update(outcome.run, { kind: 'awaiting' });
    const { have, need } = outcome.progress;
    await tell(renderAck(`Your approval of ${stack.name} is recorded (${have}/${need}).`));
    return;
  }
  await tell(renderAck(`Approved (${outcome.progress.have}/${outcome.progress.need}): applying ${stack.name} now.`));
  await deps.apply(outcome.run, click.userId);
}

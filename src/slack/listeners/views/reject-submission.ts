import { rejectRun } from '../../../services/approval/reject-run.js';
import { REJECT_MODAL } from '../../action-ids.js';
import { renderNotAllowed } from '../../blocks/render-command-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval/approval-deps.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { Tell } from '../tell.js';

/** The modal's submission: reject (checked and audited by rejectRun, which the notifier renders), or say why not. */
export async function handleRejectSubmission(
  deps: ApprovalServiceDeps & Pick<SlackDeps, 'stack'>,
  submission: { userId: string; runId: string; values: Record<string, Record<string, { value?: string | null }>> },
  tellFor: (stack: string) => Tell,
): Promise<void> {
  const run = await deps.store.getRun(submission.runId);
  const stack = run && deps.stack(run.stack);
  if (!run || !stack) return;
  const reason = submission.values[REJECT_MODAL.reasonBlockId]?.[REJECT_MODAL.reasonActionId]?.value ?? undefined;
  const outcome = await rejectRun(deps, stack, run.id, submission.userId, reason);
  if (outcome.status === 'refused') await tellFor(stack.name)(renderNotAllowed(outcome.message));
}

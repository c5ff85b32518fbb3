import { decidableRun } from '../../../services/approval-checks.js';
import { rejectRun } from '../../../services/reject-run.js';
import { renderNotAllowed } from '../../blocks/render-command-replies.js';
import { renderRejectModal } from '../../blocks/render-reject-modal.js';
import { REJECT_MODAL } from '../../action-ids.js';
import type { SlackAppDeps } from '../../app/deps.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/** Reject opens a modal for an optional reason; the run is decided when the modal is submitted. */
export async function handleRejectClick(deps: SlackAppDeps, click: ButtonClick, tell: Tell): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const decidable = decidableRun(deps.services, found.stack, found.run.id);
  if ('status' in decidable) return tell(renderNotAllowed(decidable.message));
  if (!click.triggerId) return tell(renderNotAllowed('Slack sent this click without a trigger id, so the reject dialog cannot open.'));
  // Directly, not through the outbox: a trigger id is only good for 3 seconds.
  await deps.api.call('views.open', { trigger_id: click.triggerId, view: renderRejectModal({ run: decidable, stack: found.stack }) });
}

/** The modal's submission: reject (checked and audited by rejectRun), then the message says who and why. */
export async function handleRejectSubmission(
  deps: SlackAppDeps,
  submission: { userId: string; runId: string; values: Record<string, Record<string, { value?: string | null }>> },
  tellFor: (stack: string) => Tell,
): Promise<void> {
  const run = deps.store.getRun(submission.runId);
  const stack = run && deps.stack(run.stack);
  if (!run || !stack) return;
  const reason = submission.values[REJECT_MODAL.reasonBlockId]?.[REJECT_MODAL.reasonActionId]?.value ?? undefined;
  const outcome = await rejectRun(deps.services, stack, run.id, submission.userId, reason);
  if (outcome.status === 'refused') return tellFor(stack.name)(renderNotAllowed(outcome.message));
  await deps.messages.update(outcome.run, { kind: 'rejected', by: submission.userId, ...(outcome.reason ? { reason: outcome.reason } : {}) });
}

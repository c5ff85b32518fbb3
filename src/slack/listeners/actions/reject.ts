import { decidableRun } from '../../../services/approval/approval-checks.js';
import { renderNotAllowed } from '../../blocks/render-command-replies.js';
import { renderRejectModal } from '../../blocks/render-reject-modal.js';
import type { ApprovalServiceDeps } from '../../../services/approval/approval-deps.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/** Reject opens a modal for an optional reason; the run is decided when the modal is submitted (views/). */
export async function handleRejectClick(
  deps: ApprovalServiceDeps & Pick<SlackDeps, 'stack' | 'api'>,
  click: ButtonClick,
  tell: Tell,
): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const decidable = await decidableRun(deps, found.stack, found.run.id);
  if ('status' in decidable) return tell(renderNotAllowed(decidable.message));
  if (!click.triggerId)
    return tell(renderNotAllowed('Slack sent this click without a trigger id, so the reject dialog cannot open.'));
  // Directly, not through the outbox: a trigger id is only good for 3 seconds.
  await deps.api.call('views.open', {
    trigger_id: click.triggerId,
    view: renderRejectModal({ run: decidable, stack: found.stack }),
  });
}

/**
 * The buttons of a run awaiting a decision, shared by the run message and the App Home. Each button's
 * value is the run id (a documented interface). Approve asks for confirmation naming the stack and the
 * counts, because that click starts a real apply.
 */
import type { Button } from '@slack/types';
import type { ActionCounts } from '../../domain/plan/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import { ACTION_IDS } from '../action-ids.js';
import { truncate } from './escape.js';
import { button } from './message.js';

export interface RunButtonsInput {
  runId: string;
  stackName: string;
  counts: ActionCounts;
  /** False for a plan terraform marked errored: it cannot be applied, only rejected. */
  applyable: boolean;
  /** A GitHub integration is configured and no remediation PR is open yet. */
  canRemediate: boolean;
}

function destroyWarning(counts: ActionCounts): string {
  const doomed = counts.delete + counts.replace;
  return doomed ? ` ${doomed} resource${doomed === 1 ? '' : 's'} will be destroyed or replaced.` : '';
}

export function approveButton(input: Pick<RunButtonsInput, 'runId' | 'stackName' | 'counts'>): Button {
  const counts = formatCounts(input.counts);
  // plain_text is shown as typed, never parsed: a stack name cannot ping or link here.
  const text = `Apply ${counts} to ${truncate(input.stackName, 120)}?${destroyWarning(input.counts)} Exactly the plan shown is applied.`;
  return button('Approve & apply', ACTION_IDS.approve, input.runId, {
    style: 'primary',
    confirm: {
      title: { type: 'plain_text', text: 'Apply this plan?' },
      text: { type: 'plain_text', text: truncate(text, 300) },
      confirm: { type: 'plain_text', text: 'Approve & apply' },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: input.counts.delete + input.counts.replace > 0 ? 'danger' : 'primary',
    },
  });
}

export function runButtons(input: RunButtonsInput): Button[] {
  const buttons: Button[] = [];
  if (input.applyable) buttons.push(approveButton(input));
  buttons.push(button('Reject', ACTION_IDS.reject, input.runId, { style: 'danger' }));
  if (input.canRemediate) buttons.push(button('Open remediation PR', ACTION_IDS.remediate, input.runId));
  buttons.push(button('View full plan', ACTION_IDS.viewPlan, input.runId));
  return buttons;
}

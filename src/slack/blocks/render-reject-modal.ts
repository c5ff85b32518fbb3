/** The modal a Reject click opens: an optional reason, then the run ends and its drift is snoozed. */
import type { ModalView } from '@slack/types';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { Run } from '../../domain/run/model.js';
import { REJECT_MODAL } from '../action-ids.js';
import { code } from './escape.js';
import { section, stackLabel, type StackRef } from './message.js';

/** Long enough for a why, short enough to fit a status line and an audit entry. */
export const REJECT_REASON_MAX = 500;

export function renderRejectModal(input: { run: Run; stack: Pick<StackRef, 'name' | 'environment'> }): ModalView {
  const { run, stack } = input;
  const counts = run.counts ? ` (${formatCounts(run.counts)})` : '';
  return {
    type: 'modal',
    callback_id: REJECT_MODAL.callbackId,
    private_metadata: run.id,
    title: { type: 'plain_text', text: 'Reject plan' },
    submit: { type: 'plain_text', text: 'Reject' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        `Reject the plan for ${stackLabel(stack)}${counts}, run ${code(run.id)}? Nothing is applied, and the same drift is not alerted again for a while.`,
      ),
      {
        type: 'input',
        block_id: REJECT_MODAL.reasonBlockId,
        optional: true,
        label: { type: 'plain_text', text: 'Reason (shown on the message)' },
        element: {
          type: 'plain_text_input',
          action_id: REJECT_MODAL.reasonActionId,
          multiline: true,
          max_length: REJECT_REASON_MAX,
          placeholder: { type: 'plain_text', text: 'e.g. intended change, will be codified in PR #123' },
        },
      },
    ],
  };
}

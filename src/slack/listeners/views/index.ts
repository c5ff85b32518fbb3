import type { App } from '@slack/bolt';
import { REJECT_MODAL } from '../../action-ids.js';
import { RejectSubmission } from '../../payloads.js';
import { ackThenRead } from '../acked-payload.js';
import type { SlackDeps } from '../../slack-deps.js';
import { tellInChannel } from '../tell.js';
import { handleRejectSubmission } from './reject-submission.js';

/** Modal submissions: ack at once, check the payload, hand the work to the job queue. */
export function register(app: App, deps: SlackDeps): void {
  app.view(
    REJECT_MODAL.callbackId,
    ackThenRead(deps, RejectSubmission, 'reject submission', (data) => {
      deps.jobs.run('reject', () =>
        handleRejectSubmission(deps, data, (stack) => tellInChannel(deps, data.userId, stack, data.runId)),
      );
    }),
  );
}

import type { App } from '@slack/bolt';
import { REJECT_MODAL } from '../../action-ids.js';
import { RejectSubmission, payloadProblem } from '../../payloads.js';
import type { SlackDeps } from '../../slack-deps.js';
import { tellInChannel } from '../tell.js';
import { handleRejectSubmission } from './reject-submission.js';

/** Modal submissions: ack at once, check the payload, hand the work to the job queue. */
export function register(app: App, deps: SlackDeps): void {
  app.view(REJECT_MODAL.callbackId, async ({ ack, body }) => {
    await ack();
    const submission = RejectSubmission.safeParse(body);
    if (!submission.success) {
      deps.logger.warn({ problem: payloadProblem(submission.error) }, 'malformed reject submission; ignored');
      return;
    }
    const { data } = submission;
    deps.jobs.run('reject', () =>
      handleRejectSubmission(deps, data, (stack) => tellInChannel(deps, data.userId, stack, data.runId)),
    );
  });
}

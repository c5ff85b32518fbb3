import type { AllMiddlewareArgs, App, RespondFn } from '@slack/bolt';
import { StoreUnavailableError } from '../../../domain/errors.js';
import { ACTION_IDS } from '../../action-ids.js';
import { renderStoreUnavailable } from '../../blocks/render-command-replies.js';
import type { SlackDeps } from '../../slack-deps.js';
import { publishHome } from '../../home-tab.js';
import { ButtonClick, payloadProblem } from '../../payloads.js';
import { tellClicker, type Tell } from '../tell.js';
import { handleApprove } from './approve.js';
import { handleOpenStack } from './open-stack.js';
import { handleRemediate } from './remediate.js';
import { handleRejectClick } from './reject.js';
import { handleViewPlan } from './view-plan.js';

type ClickHandler = (deps: SlackDeps, click: ButtonClick, tell: Tell) => Promise<void>;

async function refreshHome(deps: SlackDeps, click: ButtonClick): Promise<void> {
  await publishHome(deps, click.userId);
}

const HANDLERS: Record<string, ClickHandler> = {
  [ACTION_IDS.approve]: handleApprove,
  [ACTION_IDS.reject]: handleRejectClick,
  [ACTION_IDS.viewPlan]: handleViewPlan,
  [ACTION_IDS.remediate]: handleRemediate,
  [ACTION_IDS.openStack]: handleOpenStack,
  [ACTION_IDS.refreshHome]: refreshHome,
};

/**
 * Every button: ack at once, check the payload, and hand the work to the job queue. One listener for all
 * of driftgate's buttons, so Bolt matches a click against one constraint rather than one per button.
 */
export function register(app: App, deps: SlackDeps): void {
  app.action(
    /^driftgate\./,
    async ({
      ack,
      body,
      respond,
    }: AllMiddlewareArgs & { ack: () => Promise<void>; body: unknown; respond?: RespondFn }) => {
      await ack();
      const click = ButtonClick.safeParse(body);
      if (!click.success) {
        deps.logger.warn({ problem: payloadProblem(click.error) }, 'malformed Slack button payload; ignored');
        return;
      }
      const handler = HANDLERS[click.data.actionId];
      if (!handler) {
        deps.logger.warn({ actionId: click.data.actionId }, 'click on a button driftgate does not know; ignored');
        return;
      }
      const tell = tellClicker(deps, click.data, click.data.responseUrl ? respond : undefined);
      deps.jobs.run(click.data.actionId, () =>
        handler(deps, click.data, tell).catch(async (err: unknown) => {
          if (!(err instanceof StoreUnavailableError)) throw err;
          // Nothing was recorded: the person can click again once the store answers.
          deps.logger.warn(
            { err: err.message, actionId: click.data.actionId, user: click.data.userId },
            'click: store down',
          );
          await tell(renderStoreUnavailable());
        }),
      );
    },
  );
}

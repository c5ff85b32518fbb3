import type { App } from '@slack/bolt';
import { StoreUnavailableError } from '../../../domain/errors.js';
import { ACTION_IDS } from '../../action-ids.js';
import { renderStoreUnavailable } from '../../blocks/render-command-replies.js';
import type { SlackDeps } from '../../slack-deps.js';
import { publishHome } from '../../home-tab.js';
import { ButtonClick } from '../../payloads.js';
import { ackThenRead } from '../acked-payload.js';
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
    ackThenRead(deps, ButtonClick, 'Slack button payload', (click, respond) => {
      const handler = HANDLERS[click.actionId];
      if (!handler) {
        deps.logger.warn({ actionId: click.actionId }, 'click on a button driftgate does not know; ignored');
        return;
      }
      const tell = tellClicker(deps, click, click.responseUrl ? respond : undefined);
      deps.jobs.run(click.actionId, () =>
        handler(deps, click, tell).catch(async (err: unknown) => {
          if (!(err instanceof StoreUnavailableError)) throw err;
          // Nothing was recorded: the person can click again once the store answers.
          deps.logger.warn({ err: err.message, actionId: click.actionId, user: click.userId }, 'click: store down');
          await tell(renderStoreUnavailable());
        }),
      );
    }),
  );
}

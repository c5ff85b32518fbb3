import { renderHome } from './blocks/render-home.js';
import { stackRows, pendingApprovals } from './stack-rows.js';
import type { SlackDeps } from './listeners/deps.js';

/**
 * Publishes a user's App Home tab. `notice` is shown on top: a click on the Home tab has no channel and
 * no response_url, so that is where a refusal or result is told.
 */
export type HomeDeps = Pick<SlackDeps, 'now' | 'store' | 'config' | 'stack' | 'messages' | 'api'>;

export async function publishHome(deps: HomeDeps, userId: string, notice?: string): Promise<void> {
  const now = deps.now();
  const view = renderHome({
    stacks: stackRows(deps.store, deps.config.stacks, now),
    pending: pendingApprovals(deps.store, deps.stack, deps.messages),
    activity: deps.store.listAudit({ limit: 40 }).reverse(),
    now,
    ...(notice ? { notice } : {}),
  });
  await deps.api.call('views.publish', { user_id: userId, view });
}

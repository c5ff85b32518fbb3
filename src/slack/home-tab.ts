import { renderHome } from './blocks/render-home.js';
import type { SlackDeps, ViewerDeps } from './slack-deps.js';
import { readPoolsView } from './pools-view.js';
import { readRecentUnmatched } from './recent-unmatched-view.js';
import { pendingApprovals, stackRows } from './stack-rows.js';
import { VISIBILITY_UNKNOWN } from './blocks/render-command-replies.js';

export type HomeDeps = ViewerDeps & Pick<SlackDeps, 'now' | 'stack' | 'api' | 'pools'>;

/**
 * Publishes a user's App Home tab: the stacks, pending approvals and activity they may read
 * (slack.visibility), and to an approver the last day's changes to resources no stack manages. `notice`
 * is shown on top: a click on the Home tab has no channel and no response_url, so that is where a refusal
 * or result is told.
 */
export async function publishHome(deps: HomeDeps, userId: string, notice?: string): Promise<void> {
  const now = deps.now();
  const visible = await deps.visibleTo(userId).catch(() => undefined);
  const sees = (stack: string | undefined) => Boolean(visible && stack && visible.has(stack));
  const shown = notice ?? (visible ? undefined : VISIBILITY_UNKNOWN);
  const pools = await readPoolsView(deps);
  const unmatched = await readRecentUnmatched(deps, userId);
  const view = renderHome({
    stacks: await stackRows(
      deps.store,
      deps.config.stacks.filter((s) => sees(s.name)),
      now,
      deps.config.defaults.notConvergingAfter,
    ),
    pending: (await pendingApprovals(deps.store, deps.stack, deps.messages)).filter((p) => sees(p.stack.name)),
    activity: (await deps.store.listAudit({ limit: 200 }))
      .filter((a) => sees(a.stack))
      .slice(0, 40)
      .reverse(),
    now,
    ...(shown ? { notice: shown } : {}),
    ...(pools ? { pools } : {}),
    ...(unmatched ? { unmatched } : {}),
  });
  await deps.api.call('views.publish', { user_id: userId, view });
}

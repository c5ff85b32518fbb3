import { errorMessage } from '../domain/errors.js';
import { approvesAnyStack } from '../services/approval/approval-checks.js';
import type { ApprovalServiceDeps } from '../services/approval/approval-deps.js';
import {
  RECENT_UNMATCHED_HOURS,
  RECENT_UNMATCHED_SHOWN,
  type RecentUnmatched,
} from './blocks/render-recent-unmatched.js';
import type { SlackDeps } from './slack-deps.js';

export type RecentUnmatchedDeps = Pick<ApprovalServiceDeps, 'approvers' | 'usergroups' | 'logger' | 'store' | 'now'> & {
  config: Pick<SlackDeps['config'], 'stacks' | 'changeEvents'>;
};

/**
 * The last day's changes to resources no stack manages, for the App Home of someone who may list them
 * with `/drift events` (who changed what in which account is not for everyone); undefined for anyone
 * else and without change events. A store that does not answer leaves the rest of the Home shown, with
 * these said to be unreadable.
 */
export async function readRecentUnmatched(
  deps: RecentUnmatchedDeps,
  userId: string,
): Promise<RecentUnmatched | undefined> {
  const changeEvents = deps.config.changeEvents;
  if (!changeEvents) return undefined;
  const may = await approvesAnyStack(deps, deps.config.stacks, userId, 'Listing cloud changes').catch((err) => {
    deps.logger.warn({ err: errorMessage(err), user: userId }, 'could not tell whether a user may see cloud changes');
    return false as const;
  });
  if (may !== true) return undefined;
  const slackUsers = changeEvents.slackUsers;
  try {
    const since = new Date(deps.now().getTime() - RECENT_UNMATCHED_HOURS * 3600_000);
    const { changes, counted } = await deps.store.listUnmatchedChanges({ since, limit: RECENT_UNMATCHED_SHOWN });
    return { view: { changes, counted }, slackUsers };
  } catch (err) {
    deps.logger.warn({ err: errorMessage(err) }, 'changes to unmanaged resources could not be read');
    return { view: 'unavailable', slackUsers };
  }
}

import type { ApprovalServiceDeps } from '../services/approval-deps.js';
import { visibleStacks } from '../services/visibility.js';
import type { SlackDeps } from './listeners/deps.js';

export type ViewerDeps = ApprovalServiceDeps & Pick<SlackDeps, 'directory' | 'config' | 'messages'>;

const RESTRICTED = { stacks: 'channel-or-approvers', guests: false } as const;

/** The configured stacks `userId` may read, by `slack.visibility` (see services/visibility.ts). */
export function visibleTo(deps: ViewerDeps, userId: string): Promise<Set<string>> {
  const visibility = deps.config.slack?.visibility ?? RESTRICTED;
  return visibleStacks(
    { ...deps, visibility, channelOf: (stack) => deps.messages.channelOf(stack) },
    userId,
    deps.config.stacks,
  );
}

/** Said instead of a stack's details to someone who may not read them. */
export const NOT_VISIBLE =
  "You can see a stack's plans once you are in its alert channel or may approve it; ask in that channel.";

/** Said when Slack could not tell who may see what: nothing is shown rather than guessed. */
export const VISIBILITY_UNKNOWN =
  'driftgate could not check with Slack which stacks you may see, so nothing is shown. Please try again in a minute.';

import type { Stack } from '../../domain/stack.js';
import type { VisibilityRules } from '../../domain/visibility.js';
import type { SlackDirectory } from '../../ports/slack-directory.js';
import type { ApprovalServiceDeps } from '../approval/approval-deps.js';
import { decisionRights } from '../approval/approval-checks.js';

export interface VisibilityDeps extends ApprovalServiceDeps {
  directory: SlackDirectory;
  /** `slack.visibility`; unset, a stack is read by its alert channel's members and its approvers. */
  visibility: VisibilityRules | undefined;
  /** The channel a stack's alerts go to: its members see the stack. */
  channelOf(stack: string): string;
}

/**
 * The stacks, of `stacks`, whose plans, errors and audit `userId` may read: none for a guest unless the
 * config lets guests see; otherwise the stacks whose alert channel they are in or that they may approve
 * (or every stack, with `everyone`). Throws ExternalServiceError when Slack cannot say: the caller shows
 * nothing rather than guess.
 */
const RESTRICTED: VisibilityRules = { stacks: 'channel-or-approvers', guests: false };

export async function visibleStacks(
  deps: VisibilityDeps,
  userId: string,
  stacks: readonly Stack[],
): Promise<Set<string>> {
  const visibility = deps.visibility ?? RESTRICTED;
  if (!visibility.guests && (await deps.directory.isGuest(userId))) return new Set();
  if (visibility.stacks === 'everyone') return new Set(stacks.map((s) => s.name));
  const visible = new Set<string>();
  for (const stack of stacks) {
    if (await deps.directory.inChannel(userId, deps.channelOf(stack.name))) {
      visible.add(stack.name);
      continue;
    }
    const rights = await decisionRights(deps, stack, userId, 'approve');
    if (!('status' in rights)) visible.add(stack.name);
  }
  return visible;
}

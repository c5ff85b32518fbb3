import type { Stack } from '../../../domain/stack.js';
import { approvesAnyStack } from '../../../services/approval/approval-checks.js';
import { renderNotAllowed } from '../../blocks/render-command-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval/approval-deps.js';
import type { Tell } from '../tell.js';

/** `approvesAnyStack`, with a refusal told to the user; false then. */
export async function mayApproveAnyStack(
  deps: Pick<ApprovalServiceDeps, 'approvers' | 'usergroups' | 'logger'>,
  stacks: readonly Pick<Stack, 'name' | 'environment'>[],
  userId: string,
  what: string,
  tell: Tell,
): Promise<boolean> {
  const rights = await approvesAnyStack(deps, stacks, userId, what);
  if (rights === true) return true;
  await tell(renderNotAllowed(rights.message));
  return false;
}

import type { Stack } from '../../../domain/stack.js';
import { approvesAnyStack, decisionRights } from '../../../services/approval-checks.js';
import { renderNotAllowed } from '../../blocks/render-command-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval-deps.js';
import type { Tell } from '../tell.js';

/**
 * Whether the user may do `what` to the stack: it takes someone who may approve its plans (unlock lifts a
 * safety block, silence hides drift, remediate writes to its repository). A refusal is audited as `<action>_refused` and told; false then.
 */
const GERUND = { unlock: 'Unlocking', silence: 'Silencing', remediate: 'Opening a remediation PR for' } as const;

export async function mayActOn(
  deps: ApprovalServiceDeps,
  stack: Stack,
  userId: string,
  action: keyof typeof GERUND,
  tell: Tell,
): Promise<boolean> {
  const rights = await decisionRights(deps, stack, userId, 'approve');
  if (!('status' in rights)) return true;
  await refuse(deps, stack.name, userId, action, rights.reason, rights.message);
  await tell(
    renderNotAllowed(`${GERUND[action]} ${stack.name} takes someone who may approve its plans. ${rights.message}`),
  );
  return false;
}

export async function refuse(
  deps: Pick<ApprovalServiceDeps, 'store' | 'now'>,
  stack: string,
  userId: string,
  action: string,
  reason: string,
  message: string,
): Promise<void> {
  await deps.store.appendAudit({
    at: deps.now(),
    actor: userId,
    action: `${action}_refused`,
    stack,
    detail: { reason, message },
  });
}

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

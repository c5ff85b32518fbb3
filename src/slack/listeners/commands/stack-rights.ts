import { describeGroups } from '../../../domain/approvals/evaluate.js';
import { requirementFor } from '../../../domain/approvals/requirement.js';
import { DriftgateError, errorMessage } from '../../../domain/errors.js';
import type { Stack } from '../../../domain/stack.js';
import { decisionRights } from '../../../services/approval-checks.js';
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

/**
 * Whether the user may approve the plans of at least one stack: what it takes to see what driftgate
 * knows across stacks (who changed which cloud resource). When Slack cannot say, the answer is no.
 */
export async function mayApproveAnyStack(
  deps: Pick<ApprovalServiceDeps, 'approvers' | 'usergroups' | 'logger'>,
  stacks: readonly Pick<Stack, 'name' | 'environment'>[],
  userId: string,
  what: string,
  tell: Tell,
): Promise<boolean> {
  const groups = [...new Set(stacks.flatMap((s) => requirementFor(s, deps.approvers)?.requirement.groups ?? []))];
  if (!deps.approvers || groups.length === 0) {
    await tell(
      renderNotAllowed(`${what} takes someone who may approve a stack's plans, and no approval rule covers any stack.`),
    );
    return false;
  }
  try {
    const userGroups = await deps.usergroups.groupsOf(userId, deps.approvers, groups);
    if (userGroups.some((g) => groups.includes(g))) return true;
  } catch (err) {
    if (!(err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE')) throw err;
    deps.logger.warn({ err: errorMessage(err) }, 'could not resolve approver groups');
    await tell(
      renderNotAllowed(
        `driftgate could not check with Slack whether you may approve a stack's plans. Try again in a minute.`,
      ),
    );
    return false;
  }
  await tell(renderNotAllowed(`${what} takes someone who may approve a stack's plans (${describeGroups(groups)}).`));
  return false;
}

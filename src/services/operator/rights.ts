import type { Stack } from '../../domain/stack.js';
import type { RunStore } from '../../ports/store.js';
import { decisionRights } from '../approval/approval-checks.js';
import type { ApprovalServiceDeps } from '../approval/approval-deps.js';

/** What a person may do to a stack besides deciding on its plans. */
export type OperatorAct = 'unlock' | 'silence' | 'remediate';

/**
 * Who asks for an operator act, as the audit names them. Slack proves who a Slack user is, so they are
 * checked against the stack's approvers rules. A person at a terminal (`cli:<OS user>`) holds the config and
 * the store already, which is all those rules guard.
 */
export type Operator = { slackUser: string } | { terminal: string };

export function actorOf(by: Operator): string {
  return 'slackUser' in by ? by.slackUser : by.terminal;
}

/** An operator act not done, audited as `<act>_refused`; `message` is written for the person who asked. */
export interface OperatorRefusal {
  status: 'refused';
  act: OperatorAct;
  reason: string;
  message: string;
  /** Refused because the person may not approve the stack's plans (rather than because of its state now). */
  notApprover?: true;
}

export interface AuditDeps {
  store: Pick<RunStore, 'appendAudit'>;
  now: () => Date;
}

export type RightsDeps = AuditDeps & Pick<ApprovalServiceDeps, 'approvers' | 'usergroups' | 'logger'>;

/**
 * Why the Slack user may not do `act` to the stack, audited; undefined when they may. It takes someone who
 * may approve its plans: unlock lifts a safety block, silence hides drift, remediate writes to its repository.
 */
export async function operatorRefusal(
  deps: RightsDeps,
  stack: Stack,
  userId: string,
  act: OperatorAct,
): Promise<OperatorRefusal | undefined> {
  const rights = await decisionRights(deps, stack, userId, 'approve');
  if (!('status' in rights)) return undefined;
  return { ...(await refuseAct(deps, stack.name, userId, act, rights.reason, rights.message)), notApprover: true };
}

/** An act refused, with why: audited as `<act>_refused`. */
export async function refuseAct(
  deps: AuditDeps,
  stack: string,
  actor: string,
  act: OperatorAct,
  reason: string,
  message: string,
): Promise<OperatorRefusal> {
  await deps.store.appendAudit({
    at: deps.now(),
    actor,
    action: `${act}_refused`,
    stack,
    detail: { reason, message },
  });
  return { status: 'refused', act, reason, message };
}

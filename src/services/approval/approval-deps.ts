import type { ApproverRules } from '../../domain/approvals/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { Run } from '../../domain/run/model.js';
import type { UsergroupResolver } from '../../ports/usergroups.js';
import type { ServiceDeps } from '../runtime/deps.js';

/** What approve and reject need on top of the run services (whose store holds approvals and snoozes too). */
export interface ApprovalDeps {
  usergroups: UsergroupResolver;
  /** undefined: no approvers configured, so nobody can apply from Slack. */
  approvers: ApproverRules | undefined;
  /** How long a rejected drift (its fingerprint) stays quiet: `defaults.snooze`. */
  snoozeMs: number;
  /**
   * The GitHub login of whoever authored the change a run would apply (commit or PR author), mapped to a
   * Slack user through `approvers.authors`. Absent or undefined for drift, which has no author in Git.
   */
  authorOf?: (run: Run) => Promise<string | string[] | undefined>;
  /** What the policies said about the run's plan (denials, extra approvals); absent without policies. */
  policyOf?: (run: Run) => Promise<PolicyEvaluation | undefined>;
  /** Asks for a fresh plan of a stack (after its plan expired). */
  requestCheck(stack: string): void;
  /**
   * The way a decision came in when it is not Slack, for the audit: `cli:<OS user>` for
   * `driftgate approve --as`, whose Slack user is claimed rather than proven by Slack.
   */
  via?: string;
}

export type ApprovalServiceDeps = ServiceDeps & ApprovalDeps;

/**
 * Where each stack stands, read from the store alone (no plan, no terraform): what `/drift status`, the
 * App Home and `driftgate status` show. One reading for all three, so they never disagree.
 */
import type { ApprovalProgress, Approval, ApproverRules } from '../../domain/approvals/model.js';
import { progressOf } from '../../domain/approvals/evaluate.js';
import { allRequirements, requirementFor } from '../../domain/approvals/requirement.js';
import type { ActionCounts } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { Run, StackLock, StackRecord, StackStatus } from '../../domain/run/model.js';
import { AWAITING_DECISION, IN_FLIGHT } from '../../domain/run/state.js';
import type { Stack } from '../../domain/stack.js';
import type { Silence } from '../../ports/slack-store.js';
import type { Store } from '../../ports/store.js';

/** A run not finished yet, and for one awaiting a decision the approvals it has and still needs. */
export interface OpenRun {
  run: Run;
  approvals: Approval[];
  /** Absent when no approvers rule covers the stack (nobody can approve it) or details were not asked for. */
  progress?: ApprovalProgress;
}

export interface StackState {
  name: string;
  environment?: string;
  status: StackStatus;
  record?: StackRecord;
  /** Counts of the open drift or pending change. */
  counts?: ActionCounts;
  /** Runs of the stack waiting for a decision or for their apply, newest first. */
  awaiting: Run[];
  silence?: Silence;
  /** Checks in a row that planned these same changes, once that is `defaults.notConvergingAfter` or more. */
  notConverging?: number;
  /** With `details`: the run of the last check, every unfinished run with its approvals, the stack lock. */
  lastRun?: Run;
  openRuns?: OpenRun[];
  lock?: StackLock;
}

export interface StackStatusOptions {
  now: Date;
  notConvergingAfter?: number;
  /** What a person at a terminal wants on top of Slack's summary: it costs a few reads per stack. */
  details?: {
    approvers: ApproverRules | undefined;
    /** What the policies said about a run's plan: the approvals they add count toward its quorum. */
    policyOf?: (run: Run) => Promise<PolicyEvaluation | undefined>;
  };
}

const OPEN: readonly Run['state'][] = [...IN_FLIGHT, ...AWAITING_DECISION];

export async function readStackStatus(
  store: Store,
  stacks: readonly Stack[],
  options: StackStatusOptions,
): Promise<StackState[]> {
  const { now, details, notConvergingAfter = Number.POSITIVE_INFINITY } = options;
  const records = new Map((await store.listStacks()).map((r) => [r.name, r]));
  const open = await store.listRuns({ states: [...OPEN] });
  const states: StackState[] = [];
  for (const stack of stacks) {
    const record = records.get(stack.name);
    const mine = open.filter((r) => r.stack === stack.name);
    const awaiting = mine.filter((r) => AWAITING_DECISION.includes(r.state));
    const counts = record?.openDrift?.counts ?? awaiting[0]?.counts;
    const silence = await store.getSilence(stack.name, now);
    const state: StackState = {
      name: stack.name,
      ...(stack.environment ? { environment: stack.environment } : {}),
      status: record?.status ?? 'unknown',
      ...(record ? { record } : {}),
      ...(counts ? { counts } : {}),
      awaiting,
      ...(silence ? { silence } : {}),
      ...(record?.samePlan && record.samePlan.checks >= notConvergingAfter
        ? { notConverging: record.samePlan.checks }
        : {}),
    };
    if (details) Object.assign(state, await detailsOf(store, stack, record, mine, details));
    states.push(state);
  }
  return states;
}

async function detailsOf(
  store: Store,
  stack: Stack,
  record: StackRecord | undefined,
  open: Run[],
  details: NonNullable<StackStatusOptions['details']>,
): Promise<Pick<StackState, 'lastRun' | 'openRuns' | 'lock'>> {
  const lastRun = record?.lastRunId ? await store.getRun(record.lastRunId) : undefined;
  const lock = await store.getLock(stack.name);
  const match = requirementFor(stack, details.approvers);
  const openRuns: OpenRun[] = [];
  for (const run of open) {
    const approvals = await store.listApprovals(run.id);
    const decided = match && AWAITING_DECISION.includes(run.state) ? match : undefined;
    const policy = decided ? await details.policyOf?.(run) : undefined;
    const progress = decided ? progressOf(allRequirements(decided, policy?.approvals), approvals) : undefined;
    openRuns.push({ run, approvals, ...(progress ? { progress } : {}) });
  }
  return { ...(lastRun ? { lastRun } : {}), openRuns, ...(lock ? { lock } : {}) };
}

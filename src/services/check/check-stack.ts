import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Stack } from '../../domain/stack.js';
import { DriftgateError, NoStateError, TerraformError, errorMessage, failureReason } from '../../domain/errors.js';
import { analyzePlan, noChangesAnalysis } from '../../domain/plan/analyze.js';
import { fingerprintChanges } from '../../domain/plan/fingerprint.js';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import { type Attribution, mergeAttributions, policyChanges } from '../../domain/change-events/attribution.js';
import { attributedAddresses } from '../../domain/change-events/state-address.js';
import { policyCauses } from '../../domain/drift-causes/describe.js';
import { type PlanJson, parsePlanJson } from '../../domain/plan/schema.js';
import { type Announcement, announcementEvent } from '../../domain/events.js';
import { classifyRun, findsNoState } from '../../domain/run/classify.js';
import type { Run } from '../../domain/run/model.js';
import { type RunKind, UNDECIDED, type RunTrigger } from '../../domain/run/state.js';
import { planSignature } from '../../domain/plan/signature.js';
import { stackLockedMessage } from '../../domain/run/lock-holder.js';
import { storeArtifact } from '../runtime/artifacts.js';
import { standingAttribution } from './stored-attribution.js';
import { reusableAnalysis } from './reuse-analysis.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { holdStackLock } from '../runtime/stack-lock.js';
import { type CheckEvidence, causesOf, readCheckEvidence, recordEvidence, withCauses } from './drift-causes.js';
import type { DriftCauses } from '../../domain/drift-causes/model.js';

export type CheckOutcome =
  | { stack: string; status: 'no_changes'; run: Run; analysis: PlanAnalysis; resolved: boolean }
  | {
      stack: string;
      status: 'drifted' | 'pending_approval';
      run: Run;
      analysis: PlanAnalysis;
      isNew: boolean;
      policy?: PolicyEvaluation;
      /** Checks in a row with this same plan, once that is `notConvergingAfter` or more (a perpetual diff). */
      notConverging?: number;
    }
  | {
      stack: string;
      status: 'errored';
      run?: Run;
      error: string;
      stderrTail: string;
      /** `no_state`: the stack has no state where driftgate looks (NoStateError): a finding, not a crash. */
      finding?: 'no_state';
    }
  | { stack: string; status: 'interrupted'; run: Run }
  | { stack: string; status: 'blocked'; reason: string };

export interface CheckOptions {
  trigger: RunTrigger;
  signal?: AbortSignal;
  commitSha?: string;
  /** Who wrote the commit checked, asked only when the plan is a change waiting to be applied. */
  commitAuthor?: () => Promise<string | undefined>;
}

/**
 * One check of one stack: lock, plan, analyse, keep the artifacts, record the run, publish what it found.
 * Never throws for a stack's own failure: that run is errored with the reason and the caller goes on.
 */
export async function checkStack(deps: ServiceDeps, stack: Stack, options: CheckOptions): Promise<CheckOutcome> {
  const { store, logger } = deps;
  const record = await store.upsertStack(stack.name);
  if (record.blockedReason) return { stack: stack.name, status: 'blocked', reason: record.blockedReason };

  const run = await store.createRun({ stack: stack.name, trigger: options.trigger, commitSha: options.commitSha });
  const lock = await holdStackLock(deps, stack.name, run.id);
  if (!lock.acquired) {
    return fail(deps, run, stackLockedMessage(stack.name, lock.holder), '');
  }
  const runDir = join(deps.workDir, run.id);
  try {
    await mkdir(runDir, { recursive: true, mode: 0o700 });
    const planFile = join(runDir, 'plan.tfplan');
    // The change events kept so far are what this plan answers; later ones wait for the next check.
    const waitingUpTo = (await deps.changeEvents?.markWaiting(stack)) ?? 0;
    const plan = await deps.terraform.plan(stack, planFile, { signal: options.signal });
    const checked = await readCheckEvidence(deps, stack, planFile, plan.terraformVersion);
    if (!plan.hasChanges) {
      // In sync: what later checks' causes compare with.
      await recordEvidence(deps, run.id, checked.evidence);
      // Nothing to review or apply: keep the log, not the plan, and skip `show -json`.
      await storeArtifact(deps, run.id, 'plan_log', deps.secrets.redact(`${plan.stdout}\n${plan.stderr}`, stack.name));
      const version = plan.terraformVersion ?? (await deps.terraform.version()).version;
      await deps.changeEvents?.cleanPlan(stack, options.signal);
      const outcome = await recordOutcome(deps, stack, run, noChangesAnalysis(version), undefined);
      await deps.changeEvents?.answered(stack, waitingUpTo);
      return outcome;
    }
    const signature = planSignature({
      stdout: plan.stdout,
      commitSha: run.commitSha,
      terraformVersion: plan.terraformVersion ?? (await deps.terraform.version()).version,
      policyDigest: deps.policyDigest ?? '',
    });
    const found =
      (await reuseEarlierAnalysis(deps, stack, run, signature, { ...options, waitingUpTo, checked })) ??
      (await analyseAfresh(deps, stack, run, planFile, plan, { ...options, waitingUpTo, checked }));
    // Not drift to approve: one finding, told once like a failed plan, with no Approve button.
    if (!stack.planEmptyState && findsNoState(found.analysis))
      throw new NoStateError(stack.name, stack.workspace, found.analysis.counts.create);
    const planSha256 = await storeAnalysed(deps, run.id, planFile, found);
    await recordEvidence(deps, run.id, checked.evidence);
    // Audited when the policies judged this plan, not when an earlier run's judgement was reused.
    if (found.judged && found.policy?.fired.length) {
      await store.appendAudit({
        at: deps.now(),
        actor: 'system',
        action: 'policies_fired',
        runId: run.id,
        stack: stack.name,
        detail: { rules: found.policy.fired, denied: found.policy.denied },
      });
    }
    await store.setPlanSignature(run.id, signature);
    logger.info(
      {
        stack: stack.name,
        runId: run.id,
        initRan: plan.initRan,
        ms: plan.durationMs,
        ...(found.reusedFrom ? { reusedFrom: found.reusedFrom } : {}),
      },
      'plan finished',
    );
    const outcome = await recordOutcome(deps, stack, run, found.analysis, planSha256, found.policy);
    await deps.changeEvents?.answered(stack, waitingUpTo);
    return outcome;
  } catch (err) {
    if (options.signal?.aborted) {
      const interrupted = await store.transition(run.id, 'planning', 'interrupted', {
        error: 'driftgate stopped while the plan ran',
      });
      return { stack: stack.name, status: 'interrupted', run: interrupted ?? run };
    }
    const stderrTail = err instanceof TerraformError ? err.stderrTail : '';
    const reason = failureReason(err);
    if (!(err instanceof DriftgateError)) logger.error({ err, stack: stack.name, runId: run.id }, 'check failed');
    const finding = err instanceof NoStateError ? 'no_state' : undefined;
    // Awaited here, not returned: the finally below awaits the lock's release first, and a fail() that
    // rejects meanwhile (the store went away) would be a rejection nobody handles yet, which ends the process.
    return await fail(
      deps,
      run,
      deps.secrets.redact(reason, stack.name),
      deps.secrets.redact(stderrTail, stack.name),
      finding,
    );
  } finally {
    await lock.release();
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

interface Analysed {
  analysis: PlanAnalysis;
  policy?: PolicyEvaluation;
  /** The plan JSON and the masked plan log kept with the run. */
  planJson: Buffer | string;
  planLog: Buffer | string;
  /** The earlier run whose analysis stands for this plan (same signature), when one did. */
  reusedFrom?: string;
  /** Who changed the drifted resources, when change events or CloudTrail say. */
  attribution?: Attribution;
  /** The policies judged this plan now (not an earlier run's judgement reused as it was). */
  judged: boolean;
}

/**
 * The same plan as an earlier run's (a perpetual diff, drift nobody has dealt with yet): its analysis,
 * policy result, plan JSON and masked log are the new run's too, and `show -json` is not run. The new saved
 * plan is stored as always: an apply applies the file this run recorded.
 */
async function reuseEarlierAnalysis(
  deps: ServiceDeps,
  stack: Stack,
  run: Run,
  signature: string,
  options: CauseOptions & { waitingUpTo: number },
): Promise<Analysed | undefined> {
  const { waitingUpTo } = options;
  const earlier = await reusableAnalysis(deps, stack.name, run.id, signature);
  if (!earlier) return undefined;
  const kind = classifyRun({
    analysis: earlier.analysis,
    commitSha: run.commitSha,
    lastAppliedCommit: (await deps.store.getStack(stack.name))?.lastAppliedCommit,
  });
  // Judged as drift then and as a pending change now (a baseline moved): the policies judge it again.
  if (kind !== earlier.from.kind) return undefined;
  const { planJson, planLog } = earlier;
  // The same drift as the earlier run: who made it stands, and events kept since may add to it.
  const named = await attributeDrift(deps, stack, earlier.analysis, { upTo: waitingUpTo, lookUp: false });
  const before = await standing(deps, stack, earlier.analysis);
  const attribution = mergeAttributions(before, named);
  // Who made it is new to the policies (`drift.changes`): they judge the same plan again with all of it.
  // Calls already known (kept again after an answer was not cleared) are nothing new to judge.
  const known = new Set(before?.status === 'found' ? before.changes.map((c) => c.eventId) : []);
  const learned = named?.status === 'found' && named.changes.some((c) => !known.has(c.eventId));
  let parsed: PlanJson | undefined;
  const json = () => (parsed ??= parsePlanJson(planJson.toString()));
  const causes = kind
    ? await causesOf(deps, {
        stack,
        run,
        kind,
        analysis: earlier.analysis,
        planJson: json,
        attribution,
        checked: options.checked,
        commitAuthor: options.commitAuthor,
      })
    : undefined;
  // Causes the policies did not see (a record since, a state written): they judge the same plan again.
  const newCauses = JSON.stringify(causes ?? {}) !== JSON.stringify(earlier.analysis.causes ?? {});
  const again =
    (learned || newCauses) && kind && deps.evaluatePolicies
      ? judge(deps, json(), stack, kind, earlier.analysis, attribution, causes)
      : undefined;
  const { analysis, policy } = again ?? earlier;
  return {
    analysis: withCauses(analysis, causes),
    planJson,
    planLog,
    reusedFrom: earlier.from.id,
    judged: Boolean(again),
    ...(policy ? { policy } : {}),
    ...(attribution ? { attribution } : {}),
  };
}

/**
 * The config's policies over a plan of `kind`, told who changed its drift; drift an `ignore` rule covers
 * leaves the analysis's fingerprint, so that the same real drift does not look new each time its value moves.
 */
function judge(
  deps: ServiceDeps,
  planJson: PlanJson,
  stack: Stack,
  kind: RunKind,
  analysis: PlanAnalysis,
  attribution: Attribution | undefined,
  causes: DriftCauses | undefined,
): { analysis: PlanAnalysis; policy?: PolicyEvaluation } {
  if (!deps.evaluatePolicies) return { analysis };
  const { redactor } = analyzePlan(planJson);
  const policy = deps.evaluatePolicies(
    planJson,
    redactor,
    stack,
    kind,
    policyChanges(attribution),
    policyCauses(causes),
  );
  const ignored = new Set(policy.ignored.map((i) => i.address));
  return { analysis: { ...analysis, fingerprint: fingerprintWithout(analysis, ignored) }, policy };
}

async function analyseAfresh(
  deps: ServiceDeps,
  stack: Stack,
  run: Run,
  planFile: string,
  plan: { stdout: string; stderr: string },
  options: CauseOptions & { waitingUpTo: number },
): Promise<Analysed> {
  const { store } = deps;
  const json = await deps.terraform.showJson(stack, planFile, { signal: options.signal });
  const planJson = parsePlanJson(json);
  const { analysis, redactor } = analyzePlan(planJson);
  deps.secrets.add(stack.name, redactor);
  await deps.changeEvents?.indexPlan(stack, planJson);
  const kind = classifyRun({
    analysis,
    commitSha: run.commitSha,
    lastAppliedCommit: (await store.getStack(stack.name))?.lastAppliedCommit,
  });
  // Who made the drift that still stands is kept; this check adds who made what is new.
  const attribution = kind
    ? mergeAttributions(
        await standing(deps, stack, analysis),
        await attributeDrift(deps, stack, analysis, { upTo: options.waitingUpTo }),
      )
    : undefined;
  const causes = kind
    ? await causesOf(deps, {
        stack,
        run,
        kind,
        analysis,
        planJson: () => planJson,
        attribution,
        checked: options.checked,
        commitAuthor: options.commitAuthor,
      })
    : undefined;
  const judged = kind ? judge(deps, planJson, stack, kind, analysis, attribution, causes) : { analysis };
  const planLog = deps.secrets.redact(`${plan.stdout}\n${plan.stderr}`, stack.name);
  return {
    analysis: withCauses(judged.analysis, causes),
    planJson: json,
    planLog,
    judged: Boolean(kind),
    ...(judged.policy ? { policy: judged.policy } : {}),
    ...(attribution ? { attribution } : {}),
  };
}

type CauseOptions = CheckOptions & { checked: CheckEvidence };

/**
 * Who changed what drifted (the plan's `resource_drift`), also in the plan of a change merged to Git:
 * approving it overwrites what was changed by hand, so its approvers are told who changed it.
 */
function attributeDrift(
  deps: ServiceDeps,
  stack: Stack,
  analysis: PlanAnalysis,
  options: { upTo: number; lookUp?: boolean },
): Promise<Attribution | undefined> {
  if (!deps.changeEvents) return Promise.resolve(undefined);
  return deps.changeEvents.attribute(stack, [...new Set(analysis.drift.map((d) => d.address))], options);
}

/**
 * Who changed the resources of this plan's drift as the checks before it knew (per resource, until its
 * drift ends). Unreadable (retention took it, its sha256 fails) costs only that knowledge.
 */
async function standing(deps: ServiceDeps, stack: Stack, analysis: PlanAnalysis): Promise<Attribution | undefined> {
  if (!deps.changeEvents) return undefined;
  // Who wrote the state stands with the drift too: the state_outside cause it explains stands until an
  // apply or a clean check records the state again.
  return standingAttribution(deps, stack.name, attributedAddresses(analysis.drift.map((d) => d.address))).catch(
    (err: unknown) => {
      deps.logger.warn({ stack: stack.name, err: errorMessage(err) }, 'who made the earlier drift was not read');
      return undefined;
    },
  );
}

/** Keeps the saved plan and what was found in it with the run; returns the plan's sha256. */
async function storeAnalysed(deps: ServiceDeps, runId: string, planFile: string, found: Analysed): Promise<string> {
  const planArtifact = await storeArtifact(deps, runId, 'plan', await readFile(planFile));
  await storeArtifact(deps, runId, 'plan_json', found.planJson);
  await storeArtifact(deps, runId, 'plan_log', found.planLog);
  await storeArtifact(deps, runId, 'analysis', JSON.stringify(found.analysis));
  if (found.policy) await storeArtifact(deps, runId, 'policy', JSON.stringify(found.policy));
  if (found.attribution) await storeArtifact(deps, runId, 'attribution', JSON.stringify(found.attribution));
  return planArtifact.sha256;
}

/** The fingerprint of the changes no `ignore` rule covers. */
function fingerprintWithout(analysis: PlanAnalysis, ignored: ReadonlySet<string>): string {
  const keep = (list: PlanAnalysis['changes']) => list.filter((c) => !ignored.has(c.address));
  return fingerprintChanges({
    changes: keep(analysis.changes),
    drift: keep(analysis.drift),
    outputs: analysis.outputs,
  });
}

/**
 * Records what the plan found and supersedes older undecided runs, in one transaction with what it has to
 * announce; then publishes the event and clears the announcement. A process that dies in between leaves
 * the announcement for the next start (replayAnnouncements): a recorded drift is always told.
 */
async function recordOutcome(
  deps: ServiceDeps,
  stack: Stack,
  run: Run,
  analysis: PlanAnalysis,
  planSha256: string | undefined,
  policy?: PolicyEvaluation,
): Promise<CheckOutcome> {
  const { store } = deps;
  const { outcome, announcement } = await store.atomically((tx) =>
    record({ ...deps, store: tx }, stack, run, analysis, planSha256, policy),
  );
  const event = announcementEvent(announcement, outcome.run, { analysis, policy });
  if (event) await deps.bus.publish(event);
  await store.announced(run.id);
  return outcome;
}

/** Writes only through `deps.store`, which is the transaction's store. */
async function record(
  deps: ServiceDeps,
  stack: Stack,
  run: Run,
  analysis: PlanAnalysis,
  planSha256: string | undefined,
  policy: PolicyEvaluation | undefined,
): Promise<{ outcome: Extract<CheckOutcome, { run: Run; analysis: PlanAnalysis }>; announcement: Announcement }> {
  const { store } = deps;
  const before = await store.getStack(stack.name);
  const kind = classifyRun({ analysis, commitSha: run.commitSha, lastAppliedCommit: before?.lastAppliedCommit });
  const patch = { fingerprint: analysis.fingerprint, counts: analysis.counts, planSha256 };
  // An approved run waits for its apply: a re-plan never takes it away (the apply's own plan check decides).
  const undecided = (await store.listRuns({ stack: stack.name, states: [...UNDECIDED] })).filter(
    (r) => r.id !== run.id,
  );
  for (const old of undecided) await store.transition(old.id, UNDECIDED, 'superseded', { supersededBy: run.id });
  const announce = async (announcement: Announcement) => {
    await store.announce(run.id, announcement);
    return announcement;
  };

  if (!kind) {
    const done = (await store.transition(run.id, 'planning', 'no_changes', patch)) ?? run;
    // A clean plan at a commit proves its code is what is live (a merged remediation PR, a change applied
    // by hand): changes planned at that commit later are drift, not a change waiting to be applied.
    if (run.commitSha && run.commitSha !== before?.lastAppliedCommit) {
      await store.setLastAppliedCommit(stack.name, run.commitSha);
      await store.appendAudit({
        at: deps.now(),
        actor: 'system',
        action: 'baseline',
        runId: run.id,
        stack: stack.name,
        detail: { commit: run.commitSha, previous: before?.lastAppliedCommit ?? null, source: 'clean_plan' },
      });
    }
    const closed = await store.closeDrift(stack.name);
    await store.countSamePlan(stack.name, undefined);
    await store.setStackStatus(stack.name, 'in_sync', run.id);
    return {
      outcome: { stack: stack.name, status: 'no_changes', run: done, analysis, resolved: Boolean(closed) },
      announcement: await announce(
        closed
          ? { type: 'drift_resolved', previousFingerprint: closed.fingerprint, previousRunId: closed.runId }
          : { type: 'no_changes' },
      ),
    };
  }

  const to = kind === 'drift' ? 'drifted' : 'pending_approval';
  const done = (await store.transition(run.id, 'planning', to, { ...patch, kind })) ?? run;
  await store.setStackStatus(stack.name, to === 'drifted' ? 'drifted' : 'pending_approval', run.id);
  const previous = undecided.find((r) => r.fingerprint === analysis.fingerprint);
  if (previous && previous.commitSha === done.commitSha) await carryApprovals(deps, previous, done);
  const isNew =
    kind === 'drift'
      ? await store.openDrift(stack.name, { fingerprint: analysis.fingerprint, runId: run.id, counts: analysis.counts })
      : !previous;
  // Named once, on the check that reaches the threshold: later ones of the same plan stay quiet.
  const repeats = await store.countSamePlan(stack.name, analysis.fingerprint);
  const announcement: Announcement = isNew
    ? { type: kind === 'drift' ? 'drift_detected' : 'plan_pending_approval' }
    : {
        type: 'plan_refreshed',
        ...(previous ? { previousRunId: previous.id } : {}),
        ...(repeats === deps.notConvergingAfter ? { notConverging: repeats } : {}),
      };
  return {
    outcome: {
      stack: stack.name,
      status: to,
      run: done,
      analysis,
      isNew,
      ...(policy ? { policy } : {}),
      ...(repeats >= deps.notConvergingAfter ? { notConverging: repeats } : {}),
    },
    announcement: await announce(announcement),
  };
}

/**
 * The same changes planned again at the same commit: the approvals given to the plan it replaces still
 * hold, so a re-plan (a `/drift check`, the schedule) never wipes a decision in progress.
 */
async function carryApprovals(deps: ServiceDeps, from: Run, to: Run): Promise<void> {
  const approvals = await deps.store.listApprovals(from.id);
  const carried: typeof approvals = [];
  for (const a of approvals) if (await deps.store.addApproval({ ...a, runId: to.id })) carried.push(a);
  if (carried.length === 0) return;
  await deps.store.appendAudit({
    at: deps.now(),
    actor: 'system',
    action: 'approvals_carried',
    runId: to.id,
    stack: to.stack,
    planSha256: to.planSha256,
    detail: { from: from.id, users: carried.map((a) => a.userId) },
  });
}

/**
 * A check that failed before terraform could run (the stack's Git source could not be fetched or checked
 * out): an errored run and `plan_failed`, so it is seen, and deduplicated, like a failed plan.
 */
export async function recordFailedCheck(
  deps: ServiceDeps,
  stack: Stack,
  options: Pick<CheckOptions, 'trigger'>,
  error: string,
  stderrTail: string,
): Promise<CheckOutcome> {
  const record = await deps.store.upsertStack(stack.name);
  if (record.blockedReason) return { stack: stack.name, status: 'blocked', reason: record.blockedReason };
  return fail(deps, await deps.store.createRun({ stack: stack.name, trigger: options.trigger }), error, stderrTail);
}

async function fail(
  deps: ServiceDeps,
  run: Run,
  error: string,
  stderrTail: string,
  finding?: 'no_state',
): Promise<CheckOutcome> {
  const errored = (await deps.store.transition(run.id, 'planning', 'errored', { error })) ?? run;
  await deps.store.setStackStatus(run.stack, 'errored', run.id);
  deps.logger.warn({ stack: run.stack, runId: run.id, error }, 'check errored');
  await deps.bus.publish({ type: 'plan_failed', stack: run.stack, run: errored, error, stderrTail });
  return { stack: run.stack, status: 'errored', run: errored, error, stderrTail, ...(finding ? { finding } : {}) };
}

/**
 * The promises a soak checks once the world settled, each read from what the world kept (the store, the
 * Slack emulator, the PagerDuty receiver, the processes' logs, the stacks' applies.log) against the
 * history. Each broken promise is one violation naming its run or process, for `grep` in the history.
 */
import { pageDedupKey } from '../../src/domain/oncall/page-event.js';
import type { AuditEntry, Run } from '../../src/domain/run/model.js';
import type { Store } from '../../src/ports/store.js';
import { POOL_CHANNEL } from '../helpers/pool-world.js';
import { buttonRunIds } from './actions.js';
import type { History } from './history.js';
import { LEADS, STACKS, type SoakWorld } from './world.js';

export interface Violation {
  invariant: string;
  message: string;
  runId?: string;
  stack?: string;
  /** What to read beside the history: audit lines, log lines. */
  evidence?: unknown;
}

export interface Observed {
  runs: Run[];
  audit: Map<string, AuditEntry[]>;
  /** Successful top-level posts, in order, with the message they made and the runs their buttons name. */
  posts: { ts: string; runIds: string[]; digest: boolean; text: string }[];
  pages: { triggers: number; resolves: number; interruptedTriggers: number };
  applies: { started: number; applied: number; failed: number; interrupted: number };
  errorLogs: Record<string, number>;
}

/** A run that ends a drift's telling: decided and done (an apply that never started errs the run), so the next plan of the same changes is alerted anew. */
const TERMINAL_DECIDED = ['applied', 'apply_failed', 'interrupted', 'expired', 'rejected', 'errored'];
const SUPPRESSED = ['alert_ignored', 'alert_silenced', 'alert_snoozed'];

export async function observe(world: SoakWorld, store: Store): Promise<Observed> {
  const runs = (await store.listRuns({})).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const audit = new Map<string, AuditEntry[]>();
  for (const entry of (await store.listAudit({})).sort((a, b) => (a.id ?? 0) - (b.id ?? 0))) {
    const key = entry.runId ?? `stack:${entry.stack ?? ''}`;
    audit.set(key, [...(audit.get(key) ?? []), entry]);
  }
  const emulator = world.pool.emulator;
  const calls = emulator
    .calls('chat.postMessage')
    .filter((c) => c.status === 200 && c.ok && !c.args.thread_ts && c.args.channel === POOL_CHANNEL);
  const messages = emulator.messages(POOL_CHANNEL).filter((m) => m.threadTs === undefined);
  const posts = calls.map((c, i) => {
    const text = typeof c.args.text === 'string' ? c.args.text : '';
    return {
      ts: messages[i]?.ts ?? '?',
      runIds: buttonRunIds(c.args.blocks),
      digest: /^Drift detected in \d+ stacks?$/.test(text),
      text: text.slice(0, 120),
    };
  });
  const accepted = world.pagerduty.accepted();
  const all = [...audit.values()].flat();
  const count = (action: string) => all.filter((a) => a.action === action).length;
  const errorLogs: Record<string, number> = {};
  for (const member of world.members)
    for (const line of member.proc.logs()) {
      const entry = parse(line);
      if (entry && typeof entry.level === 'number' && entry.level >= 50) {
        const key = `${member.role}: ${String(entry.msg)}`;
        errorLogs[key] = (errorLogs[key] ?? 0) + 1;
      }
    }
  return {
    runs,
    audit,
    posts,
    pages: {
      triggers: accepted.filter((e) => e.event_action === 'trigger').length,
      resolves: accepted.filter((e) => e.event_action === 'resolve').length,
      interruptedTriggers: accepted.filter((e) => String(e.dedup_key).includes(':apply-interrupted:')).length,
    },
    applies: {
      started: count('apply_started'),
      applied: runs.filter((r) => r.state === 'applied').length,
      failed: runs.filter((r) => r.state === 'apply_failed').length,
      interrupted: count('apply_interrupted'),
    },
    errorLogs,
  };
}

const parse = (line: string): Record<string, unknown> | undefined => {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

export interface CheckInput {
  world: SoakWorld;
  store: Store;
  observed: Observed;
  history: History;
  /** Runs created from then on belong to the settling sweep: still moving when the checks read them. */
  quietFrom: Date;
  /** When the world was found settled. */
  settledAt: Date;
  appliedGenerations: string[];
}

export async function checkInvariants(input: CheckInput): Promise<Violation[]> {
  return [
    ...toldOnce(input),
    ...appliedOnce(input),
    ...(await appliedWithApprovals(input)),
    ...(await interruptedTold(input)),
    ...(await pagesResolved(input)),
    ...noCanary(input),
    ...processesClean(input),
  ];
}

/**
 * A drift is the runs of a stack in a row that planned the same changes (superseded re-plans), up to one
 * that decided it (applied, rejected, interrupted...) or planned something else: told exactly once, by its
 * own alert, a digest, or a predecessor's message it took over; or held back (silenced, snoozed, ignored).
 */
function toldOnce({ observed, settledAt }: CheckInput): Violation[] {
  // A drift first found in the last seconds may still wait in its digest window when the checks read.
  const cutoff = new Date(settledAt.getTime() - 10_000);
  const violations: Violation[] = [];
  const postsOf = new Map<string, string[]>();
  for (const post of observed.posts)
    for (const id of post.runIds) postsOf.set(id, [...(postsOf.get(id) ?? []), post.ts]);
  for (const [runId, tss] of postsOf)
    if (tss.length > 1)
      violations.push({
        invariant: 'told-once',
        runId,
        message: `run ${runId} was posted ${tss.length} times (ts ${tss.join(', ')})`,
      });

  for (const stack of STACKS) {
    let drift: Run[] = [];
    const close = () => {
      if (drift.length) violations.push(...judgeDrift(drift, postsOf, observed, cutoff));
      drift = [];
    };
    for (const run of observed.runs.filter((r) => r.stack === stack.name)) {
      if (run.state === 'planning' || (run.state === 'errored' && !run.fingerprint)) continue;
      if (run.state === 'no_changes' || !run.fingerprint) {
        close();
        continue;
      }
      if (drift.length && drift[drift.length - 1]!.fingerprint !== run.fingerprint) close();
      drift.push(run);
      if (TERMINAL_DECIDED.includes(run.state)) close();
    }
    close();
  }
  return violations;
}

function judgeDrift(drift: Run[], postsOf: Map<string, string[]>, observed: Observed, cutoff: Date): Violation[] {
  const actions = (run: Run) => (observed.audit.get(run.id) ?? []).map((a) => a.action);
  const tellings = drift.flatMap((run) => (postsOf.get(run.id) ?? []).map((ts) => ({ runId: run.id, ts })));
  const suppressed = drift.some((run) => actions(run).some((a) => SUPPRESSED.includes(a)));
  // Opened from a digest's Open button: the digest told it, and its message is in the digest's thread.
  const opened = drift.some((run) => actions(run).includes('alert_opened'));
  const first = drift[0]!;
  const ids = drift.map((r) => `${r.id} ${r.state}`);
  const evidence = drift.map((run) => ({ run: run.id, state: run.state, audit: actions(run) }));
  if (tellings.length > 1)
    return [
      {
        invariant: 'told-once',
        stack: first.stack,
        runId: first.id,
        message: `one drift of ${first.stack} (fingerprint ${first.fingerprint?.slice(0, 12)}) was posted ${tellings.length} times: ${tellings.map((t) => `${t.runId}@${t.ts}`).join(', ')}`,
        evidence,
      },
    ];
  // Replaced by other changes before anyone was told: the drift that replaced it is judged on its own.
  const replaced = drift[drift.length - 1]!.state === 'superseded';
  if (tellings.length === 0 && !suppressed && !opened && !replaced && first.createdAt < cutoff)
    return [
      {
        invariant: 'told-once',
        stack: first.stack,
        runId: first.id,
        message: `a drift of ${first.stack} was recorded and never told in Slack: ${ids.join(', ')}`,
        evidence,
      },
    ];
  return [];
}

/** No run applied twice: one apply_started each, no apply job started twice, no generation applied twice. */
function appliedOnce({ observed, world, history, appliedGenerations }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  for (const [runId, entries] of observed.audit) {
    const started = entries.filter((a) => a.action === 'apply_started');
    if (started.length > 1)
      violations.push({
        invariant: 'applied-once',
        runId,
        message: `run ${runId} has ${started.length} apply_started entries`,
        evidence: started,
      });
  }
  const applyJobs = new Map<string, number[]>();
  for (const member of world.members.filter((m) => m.role === 'worker'))
    for (const line of member.proc.logs()) {
      const entry = parse(line);
      if (entry?.msg === 'job started' && entry.kind === 'apply')
        applyJobs.set(String(entry.jobId), [...(applyJobs.get(String(entry.jobId)) ?? []), member.proc.pid]);
    }
  for (const [jobId, pids] of applyJobs)
    if (pids.length > 1)
      violations.push({
        invariant: 'applied-once',
        message: `apply job ${jobId} was started ${pids.length} times (worker pids ${pids.join(', ')})`,
      });
  // A generation twice in applies.log: applied twice, unless an apply of that stack was interrupted since
  // that drift was made (the next apply creates it again, as it must).
  const seen = new Map<string, number>();
  for (const generation of appliedGenerations) seen.set(generation, (seen.get(generation) ?? 0) + 1);
  for (const [generation, times] of seen) {
    if (times < 2) continue;
    const stack = generation.split('#')[0]!;
    const made = history.events().find((e) => e.kind === 'drift' && e.generation === generation);
    const since = made ? Date.parse(made.at) : 0;
    const interrupted = [...observed.audit.values()]
      .flat()
      .filter((a) => a.stack === stack && a.action === 'apply_interrupted' && a.at.getTime() >= since);
    if (interrupted.length === 0)
      violations.push({
        invariant: 'applied-once',
        stack,
        message: `the slow resource of ${stack} was created ${times} times for one drift (${generation}) with no interrupted apply between`,
      });
  }
  return violations;
}

/** Every apply started had its approvals: enough leads, none rejected it first, the plan reviewed. */
async function appliedWithApprovals({ observed, store }: CheckInput): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const run of observed.runs) {
    const entries = observed.audit.get(run.id) ?? [];
    const started = entries.find((a) => a.action === 'apply_started');
    if (!started) continue;
    const needed = STACKS.find((s) => s.name === run.stack)?.approvals ?? 1;
    const approvers = new Set(
      (await store.listApprovals(run.id)).map((a) => a.userId).filter((u) => LEADS.includes(u)),
    );
    if (approvers.size < needed)
      violations.push({
        invariant: 'approved-before-apply',
        runId: run.id,
        stack: run.stack,
        message: `run ${run.id} was applied with ${approvers.size} of ${needed} approvals`,
        evidence: entries.map((a) => a.action),
      });
    if (entries.some((a) => a.action === 'rejected' && (a.id ?? 0) < (started.id ?? 0)))
      violations.push({
        invariant: 'approved-before-apply',
        runId: run.id,
        stack: run.stack,
        message: `run ${run.id} was applied after it was rejected`,
      });
    if (started.planSha256 && run.planSha256 && started.planSha256 !== run.planSha256)
      violations.push({
        invariant: 'approved-before-apply',
        runId: run.id,
        stack: run.stack,
        message: `run ${run.id} applied plan ${started.planSha256}, reviewed ${run.planSha256}`,
      });
  }
  return violations;
}

/** An interrupted apply blocks its stack (until someone unlocks it) and is told: audit, message, page. */
async function interruptedTold({ observed, store, world, quietFrom }: CheckInput): Promise<Violation[]> {
  const violations: Violation[] = [];
  const accepted = world.pagerduty.accepted();
  for (const run of observed.runs) {
    const entries = observed.audit.get(run.id) ?? [];
    if (!entries.some((a) => a.action === 'apply_started')) {
      if (run.state === 'approved' && run.createdAt < quietFrom)
        violations.push({
          invariant: 'no-stuck-run',
          runId: run.id,
          stack: run.stack,
          message: `run ${run.id} is still approved and was never applied`,
          evidence: entries.map((a) => a.action),
        });
      continue;
    }
    if (run.state === 'applying' || run.state === 'approved') {
      violations.push({
        invariant: 'no-stuck-run',
        runId: run.id,
        stack: run.stack,
        message: `run ${run.id} started its apply and is still ${run.state}`,
      });
      continue;
    }
    if (run.state !== 'interrupted') continue;
    const told = entries.filter((a) => a.action === 'apply_interrupted');
    if (told.length !== 1)
      violations.push({
        invariant: 'interrupted-told',
        runId: run.id,
        stack: run.stack,
        message: `interrupted run ${run.id} has ${told.length} apply_interrupted entries`,
      });
    const record = await store.getStack(run.stack);
    const unlocked = [...observed.audit.values()]
      .flat()
      .some((a) => a.action === 'unlock' && a.stack === run.stack && told[0] && (a.id ?? 0) > (told[0].id ?? 0));
    if (!record?.blockedReason && !unlocked)
      violations.push({
        invariant: 'interrupted-told',
        runId: run.id,
        stack: run.stack,
        message: `${run.stack} is not blocked after run ${run.id}'s apply was interrupted, and nobody unlocked it`,
      });
    const ref = await store.getMessage(run.id);
    const message = ref && world.pool.emulator.message(ref.channel, ref.ts);
    if (!message || !JSON.stringify([message.text, message.blocks]).includes('Apply interrupted'))
      violations.push({
        invariant: 'interrupted-told',
        runId: run.id,
        stack: run.stack,
        message: `the message of interrupted run ${run.id} does not say "Apply interrupted"`,
        evidence: ref,
      });
    const prod = STACKS.find((s) => s.name === run.stack)?.pool === 'prod';
    if (prod && !accepted.some((e) => e.dedup_key === `driftgate:apply-interrupted:${run.id}`))
      violations.push({
        invariant: 'interrupted-told',
        runId: run.id,
        stack: run.stack,
        message: `interrupted run ${run.id} of prod was not paged`,
      });
  }
  return violations;
}

/** A drift paged is resolved once the drift is gone: the last event of its incident is a resolve. */
async function pagesResolved({ world, store }: CheckInput): Promise<Violation[]> {
  const violations: Violation[] = [];
  const accepted = world.pagerduty.accepted();
  for (const stack of STACKS) {
    const key = pageDedupKey(stack.name);
    const events = accepted.filter((e) => e.dedup_key === key);
    if (events.length === 0) continue;
    const last = events[events.length - 1]!;
    const record = await store.getStack(stack.name);
    if (!record?.openDrift && last.event_action !== 'resolve')
      violations.push({
        invariant: 'page-resolved',
        stack: stack.name,
        message: `${stack.name} no longer drifts, and its incident ${key} was left ${String(last.event_action)}`,
      });
    if (record?.openDrift && last.event_action === 'resolve') {
      const runs = await store.listAudit({ runId: record.openDrift.runId });
      if (!runs.some((a) => a.action === 'page_held'))
        violations.push({
          invariant: 'page-resolved',
          stack: stack.name,
          message: `${stack.name} drifts (run ${record.openDrift.runId}), and its incident was resolved`,
        });
    }
  }
  return violations;
}

/** The canary (a sensitive variable's value) never reaches Slack, PagerDuty or any process's log. */
function noCanary({ world }: CheckInput): Violation[] {
  const { canary } = world;
  const emulator = world.pool.emulator;
  const places: [string, string][] = [
    ['Slack calls', JSON.stringify(emulator.calls())],
    ['Slack messages', JSON.stringify(emulator.messages())],
    ['Slack responses', JSON.stringify(emulator.responses())],
    [
      'Slack files',
      emulator
        .files()
        .map((f) => f.bytes?.toString('utf8') ?? '')
        .join('\n'),
    ],
    ['PagerDuty', JSON.stringify(world.pagerduty.calls())],
    ...world.members.map((m): [string, string] => [
      `log of ${m.role} ${m.pool ?? ''} pid ${m.proc.pid}`,
      m.proc.logs().join('\n'),
    ]),
  ];
  return places
    .filter(([, text]) => text.includes(canary))
    .map(([where, text]) => ({
      invariant: 'no-canary',
      message: `the canary secret is in ${where}`,
      evidence: text.slice(Math.max(0, text.indexOf(canary) - 300), text.indexOf(canary) + 100),
    }));
}

/** No process ended unless the soak ended it, none exited unclean when stopped, none logged a crash. */
function processesClean({ world }: CheckInput): Violation[] {
  const violations: Violation[] = [];
  for (const member of world.members) {
    const who = `${member.role}${member.pool ? `:${member.pool}` : ''} pid ${member.proc.pid}`;
    const exit = member.proc.exited();
    if (!member.endedBySoak && exit)
      violations.push({
        invariant: 'process-clean',
        message: `${who} exited by itself (${JSON.stringify(exit)})`,
        evidence: member.proc.logs().slice(-10),
      });
    if (member.endedBySoak === 'stop' && exit && exit.code !== 0)
      violations.push({
        invariant: 'process-clean',
        message: `${who} stopped with SIGTERM exited ${JSON.stringify(exit)}`,
        evidence: member.proc.logs().slice(-10),
      });
    const crash = member.proc.logs().filter((l) => {
      const entry = parse(l);
      if (!entry) return /Error|Unhandled|uncaught|^\s+at /.test(l);
      return typeof entry.level === 'number' && entry.level >= 60;
    });
    if (crash.length)
      violations.push({
        invariant: 'process-clean',
        message: `${who} logged an unhandled error`,
        evidence: crash.slice(0, 10),
      });
  }
  return violations;
}

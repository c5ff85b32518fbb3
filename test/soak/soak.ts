/**
 * One soak: the world started, driven with faults for a while, settled, checked; the history, every
 * process's log and the stacks' applies.log kept in one directory, which outlives the world.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openPostgresStore } from '../../src/adapters/store/postgres/open-postgres-store.js';
import { appliedGenerations } from './actions.js';
import { CAST, drive } from './driver.js';
import { openHistory } from './history.js';
import { checkInvariants, observe, type Violation } from './invariants.js';
import { seededRandom } from './prng.js';
import { STACKS, startSoakWorld } from './world.js';

export interface SoakOptions {
  seed: number;
  /** How long faults are injected. */
  faultsForMs: number;
  faultGapMs?: [number, number];
  settleMs?: number;
  /** Where the history is kept (created). */
  dir: string;
  /** Told each line of progress. */
  log?: (line: string) => void;
}

export interface SoakReport {
  seed: number;
  dir: string;
  faults: Record<string, number>;
  skipped: Record<string, number>;
  actions: Record<string, number>;
  runs: Record<string, number>;
  alerts: { posts: number; digests: number };
  applies: { started: number; applied: number; failed: number; interrupted: number };
  pages: { triggers: number; resolves: number; interruptedTriggers: number };
  processes: { started: number; killed: number };
  errorLogs: Record<string, number>;
  violations: Violation[];
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  await mkdir(options.dir, { recursive: true });
  const history = openHistory(options.dir);
  const rng = seededRandom(options.seed);
  history.record({ kind: 'soak_begin', seed: options.seed, faultsForMs: options.faultsForMs });
  log(`soak: seed ${options.seed}, history in ${options.dir}`);
  const world = await startSoakWorld();
  const store = await openPostgresStore({ url: world.databaseUrl, poolSize: 3, configKey: 'soak' });
  try {
    for (const role of CAST) {
      const member = role.role === 'serve' ? await world.startServe() : await world.startWorker(role.pool!);
      history.record({
        kind: 'process_started',
        role: member.role,
        pool: member.pool,
        pid: member.proc.pid,
        why: 'cast',
      });
    }
    log(`soak: ${CAST.length} processes up; faults for ${Math.round(options.faultsForMs / 1000)} s`);
    const driven = await drive(world, store, rng, history, {
      faultsForMs: options.faultsForMs,
      faultGapMs: options.faultGapMs ?? [6_000, 16_000],
      settleMs: options.settleMs ?? 120_000,
    });
    const settledAt = new Date();
    log(`soak: faults stopped; ${driven.settled ? 'settled' : `not settled (${driven.unsettled})`}`);
    const observed = await observe(world, store);
    const generations = await appliedGenerations(world);
    await keepApplyLogs(options.dir, world);
    // Stopped before the process checks: a SIGTERM must end each one cleanly.
    await world.stopAll();
    const violations = [
      ...(driven.settled
        ? []
        : [
            { invariant: 'settles', message: `the world did not settle after the faults stopped: ${driven.unsettled}` },
          ]),
      ...(await checkInvariants({
        world,
        store,
        observed,
        history,
        quietFrom: driven.quietFrom,
        settledAt,
        appliedGenerations: generations,
      })),
    ];
    for (const violation of violations) history.record({ kind: 'violation', ...violation });
    const runs: Record<string, number> = {};
    for (const run of observed.runs) runs[run.state] = (runs[run.state] ?? 0) + 1;
    const report: SoakReport = {
      seed: options.seed,
      dir: options.dir,
      faults: driven.faults,
      skipped: driven.skipped,
      actions: driven.actions,
      runs,
      alerts: {
        posts: observed.posts.filter((p) => p.runIds.length > 0 && !p.digest).length,
        digests: observed.posts.filter((p) => p.digest).length,
      },
      applies: observed.applies,
      pages: observed.pages,
      processes: {
        started: world.members.length,
        killed: world.members.filter((m) => m.endedBySoak === 'kill9').length,
      },
      errorLogs: observed.errorLogs,
      violations,
    };
    history.record({ kind: 'soak_end', ...report, violations: violations.length });
    await keepLogs(options.dir, world.members);
    await writeFile(join(options.dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await history.close();
    await store.close().catch(() => undefined);
    await world.close();
  }
}

async function keepLogs(dir: string, members: Awaited<ReturnType<typeof startSoakWorld>>['members']) {
  await mkdir(join(dir, 'logs'), { recursive: true });
  for (const m of members)
    await writeFile(
      join(dir, 'logs', `${m.role}${m.pool ? `-${m.pool}` : ''}-${m.proc.pid}.log`),
      `${m.proc.logs().join('\n')}\n`,
    );
}

async function keepApplyLogs(dir: string, world: Awaited<ReturnType<typeof startSoakWorld>>) {
  for (const stack of STACKS.filter((s) => s.drifts.includes('slow')))
    await copyFile(
      join(world.pool.stackDir(stack.name), 'applies.log'),
      join(dir, `applies-${stack.name.replace('/', '-')}.log`),
    ).catch(() => undefined);
}

/** The report as a person reads it at the end of `npm run soak`. */
export function formatReport(report: SoakReport): string {
  const kv = (o: Record<string, number>) =>
    Object.entries(o)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  const total = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  const lines = [
    `seed ${report.seed}`,
    `faults injected (${total(report.faults)}): ${kv(report.faults)}`,
    `faults skipped, their moment never came (${total(report.skipped)}): ${kv(report.skipped)}`,
    `actions: ${kv(report.actions)}`,
    `runs (${total(report.runs)}): ${kv(report.runs)}`,
    `alerts: ${report.alerts.posts} posted, ${report.alerts.digests} digests`,
    `applies: ${report.applies.started} started, ${report.applies.applied} applied, ${report.applies.failed} failed, ${report.applies.interrupted} interrupted`,
    `pages: ${report.pages.triggers} triggers (${report.pages.interruptedTriggers} for interrupted applies), ${report.pages.resolves} resolves`,
    `processes: ${report.processes.started} started, ${report.processes.killed} killed with kill -9`,
    `error-level log lines: ${kv(report.errorLogs)}`,
    `violations: ${report.violations.length}`,
    ...report.violations.map((v) => `  [${v.invariant}] ${v.message}`),
    `history: ${join(report.dir, 'history.jsonl')} (logs in ${join(report.dir, 'logs')})`,
  ];
  return lines.join('\n');
}

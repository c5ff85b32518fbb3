import { formatDuration } from '../../domain/duration.js';
import { isLive, type PoolHealth, type WorkerBeat } from '../../domain/pool/pool-health.js';
import { terminalSafe } from './policy-report.js';

export interface WorkersReport {
  pools: readonly PoolHealth[];
  workers: readonly WorkerBeat[];
  now: Date;
  staleAfterMs: number;
}

/** Exit 2 when a pool has work waiting and no live worker to take it, as `check` exits 2 on drift. */
export function workersExitCode(report: WorkersReport): 0 | 2 {
  return report.pools.some((p) => p.unservedSince) ? 2 : 0;
}

const COLUMNS = ['WORKER', 'HOST', 'PID', 'CONCURRENCY', 'RUNNING', 'LAST SEEN', 'STATE'] as const;

function poolHeading(p: PoolHealth, now: Date): string[] {
  const workers = p.liveWorkers
    ? `${p.liveWorkers} live worker${p.liveWorkers === 1 ? '' : 's'} (runs ${p.capacity} at once)`
    : 'no live worker';
  const oldest =
    p.waiting && p.oldestWaitingSeconds !== undefined
      ? `, oldest queued ${formatDuration(p.oldestWaitingSeconds * 1000)} ago`
      : '';
  // The agent API's jobs: queued for a worker, or leased to one.
  const lines = [`pool ${p.pool}: ${workers}; ${p.waiting} queued, ${p.active} leased${oldest}`];
  if (p.unservedSince)
    lines.push(
      `  ! no worker for pool ${p.pool} for ${formatDuration(now.getTime() - p.unservedSince.getTime())}: start driftgate worker --pool ${p.pool}`,
    );
  return lines;
}

/** `driftgate workers`: each pool, its queue, then its workers (live first), as a table. */
export function renderWorkersReport(report: WorkersReport): string {
  const { now, staleAfterMs } = report;
  if (report.pools.length === 0) return 'no pools: no stack is configured and no worker has been seen\n';
  const out: string[] = [];
  for (const p of report.pools) {
    out.push(...poolHeading(p, now));
    const mine = report.workers.filter((w) => w.pool === p.pool);
    if (mine.length === 0) {
      out.push('  (no worker seen)', '');
      continue;
    }
    const rows = mine
      .map((w) => ({ w, live: isLive(w, now, staleAfterMs) }))
      .sort((a, b) => Number(b.live) - Number(a.live) || a.w.id.localeCompare(b.w.id))
      .map(({ w, live }) => [
        terminalSafe(w.id),
        terminalSafe(w.host),
        String(w.pid),
        String(w.concurrency),
        String(w.running),
        `${formatDuration(Math.max(0, now.getTime() - w.lastSeenAt.getTime()))} ago`,
        live ? 'live' : 'stale',
      ]);
    const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: readonly string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd();
    out.push(line(COLUMNS), ...rows.map(line), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** `driftgate workers --json` (format version 1). */
export function workersReportJson(report: WorkersReport): object {
  const { now, staleAfterMs } = report;
  return {
    version: 1,
    at: now.toISOString(),
    staleAfterSeconds: staleAfterMs / 1000,
    pools: report.pools.map((p) => ({
      pool: p.pool,
      liveWorkers: p.liveWorkers,
      capacity: p.capacity,
      waiting: p.waiting,
      active: p.active,
      oldestWaitingSeconds: p.waiting ? (p.oldestWaitingSeconds ?? null) : null,
      unservedSince: p.unservedSince?.toISOString() ?? null,
      workers: report.workers
        .filter((w) => w.pool === p.pool)
        .map((w) => ({
          id: w.id,
          host: w.host,
          pid: w.pid,
          concurrency: w.concurrency,
          running: w.running,
          startedAt: w.startedAt.toISOString(),
          lastSeenAt: w.lastSeenAt.toISOString(),
          live: isLive(w, now, staleAfterMs),
        })),
    })),
  };
}

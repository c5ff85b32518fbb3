/**
 * "Worker pools" in `/drift status` and the App Home (runners: workers): per pool its live workers and
 * what they can run at once, the jobs waiting and running, the oldest waiting one, and a warning when
 * work waits with no live worker to take it.
 */
import type { KnownBlock } from '@slack/types';
import type { PoolHealth } from '../../domain/pool/pool-health.js';
import { LIMITS } from '../limits.js';
import { code, escapeMrkdwn } from './escape.js';
import { formatDuration, header, plural, section } from './message.js';

/** The pools' health, or `unavailable` when it could not be read (the store or queue did not answer). */
export type PoolsView = readonly PoolHealth[] | 'unavailable';

/** The pools as read at `now`: what `/drift status` and the App Home are given. */
export interface PoolsAt {
  view: PoolsView;
  now: Date;
}

/** How long work has waited with nobody to take it, as the warning says it. */
export function unservedFor(health: PoolHealth, now: Date): string {
  return formatDuration(now.getTime() - (health.unservedSince ?? now).getTime());
}

export function poolLine(health: PoolHealth, now: Date): string {
  const name = `*${escapeMrkdwn(health.pool)}*`;
  const workers = health.liveWorkers
    ? `${plural(health.liveWorkers, 'live worker')} (runs ${health.capacity} at once)`
    : 'no live worker';
  const queue = health.waiting || health.active ? `${health.waiting} waiting, ${health.active} running` : 'no jobs';
  const oldest =
    health.waiting && health.oldestWaitingSeconds !== undefined
      ? ` · oldest waiting ${formatDuration(health.oldestWaitingSeconds * 1000)}`
      : '';
  const line = `• ${name} · ${workers} · ${queue}${oldest}`;
  if (!health.unservedSince) return line;
  return `${line}\n   :warning: *No worker for pool ${escapeMrkdwn(health.pool)} for ${unservedFor(health, now)}*: start ${code(`driftgate worker --pool ${health.pool}`)}`;
}

/** The section's blocks: a header and the pools' lines, unserved pools first, within `maxBlocks` (at least 2). */
export function poolBlocks({ view: pools, now }: PoolsAt, maxBlocks: number): KnownBlock[] {
  if (pools === 'unavailable')
    return [
      header('Worker pools'),
      section(':grey_question: The pools could not be read; the details are in the log.'),
    ];
  if (pools.length === 0) return [header('Worker pools'), section('No pools: no stack is configured.')];
  const ordered = [...pools].sort(
    (a, b) => Number(Boolean(b.unservedSince)) - Number(Boolean(a.unservedSince)) || a.pool.localeCompare(b.pool),
  );
  const texts = [''];
  let shown = 0;
  for (const health of ordered) {
    const line = poolLine(health, now);
    const last = texts.length - 1;
    // 60 characters stay free for the "… and N more" line.
    if (texts[last]!.length + line.length + 61 <= LIMITS.sectionText)
      texts[last] += `${texts[last] ? '\n' : ''}${line}`;
    else if (texts.length < maxBlocks - 1) texts.push(line);
    else break;
    shown += 1;
  }
  if (shown < ordered.length) texts[texts.length - 1] += `\n… and ${ordered.length - shown} more`;
  const unserved = pools.filter((p) => p.unservedSince).length;
  return [header(unserved ? `Worker pools (${unserved} unserved)` : 'Worker pools'), ...texts.map((t) => section(t))];
}

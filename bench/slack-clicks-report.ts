/**
 * The markdown of bench:slack: per round, each side's ack latency percentiles; over the rounds, driftgate
 * now against driftgate before issue 28, with the noise the rounds showed, and the verdict it allows.
 * Each round puts both driftgates under about the same load, so rounds are compared in pairs: "slower"
 * needs now to lose in more rounds than chance explains (a one-sided sign test), not one bad round.
 */

import { median, paired, SIGNIFICANCE } from './paired.js';

export type DriftgateSide = 'now' | 'before';

/**
 * One round's ack latencies in ms, sorted, per side; the CPU each driftgate's serve spent on it, and the
 * Slack methods it called, in order (the same behaviour makes the same calls).
 */
export interface ClickRound {
  round: number;
  now: number[];
  before: number[];
  bolt: number[];
  cpuMs: Record<DriftgateSide, number>;
  slackCalls: Record<DriftgateSide, string[]>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const fmt = (n: number) => n.toFixed(1);
const ratio = (n: number) => n.toFixed(2);
const pct = (n: number) => `${Math.round(n * 100)}%`;

/** now against before on one measure, over the rounds in pairs. */
function compare(name: string, now: number[], before: number[], unit: string) {
  const { ratios, lost, p, medianRatio: r, slower } = paired(now, before);
  const line = `${name}: ${fmt(median(before))} → ${fmt(median(now))} ${unit} (medians); now/before per round ${ratio(Math.min(...ratios))}–${ratio(Math.max(...ratios))}, median ${ratio(r)}; now slower in ${lost} of ${ratios.length} rounds (sign test p = ${p.toFixed(2)})`;
  return { name, line, slower, above: r > 1 };
}

function spread(values: number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return `${fmt(lo)}–${fmt(hi)} ms (±${pct((hi - lo) / 2 / median(values))} of its median)`;
}

/** `chat.postEphemeral ×199, chat.update ×2`: what one side called in one round. */
function callCounts(methods: string[]): string {
  const counts = new Map<string, number>();
  for (const m of methods) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts].map(([m, n]) => `${m} ×${n}`).join(', ') || 'none';
}

/** Whether both driftgates made the same Slack calls (counted per method) in every round. */
function sameCalls(rows: ClickRound[]): string {
  const differ = rows.filter(
    (r) => callCounts([...r.slackCalls.now].sort()) !== callCounts([...r.slackCalls.before].sort()),
  );
  if (differ.length === 0)
    return `the same in every round (round 1: ${callCounts([...rows[0]!.slackCalls.now].sort())})`;
  return differ
    .map(
      (r) =>
        `round ${r.round}: now ${callCounts([...r.slackCalls.now].sort())}; before ${callCounts([...r.slackCalls.before].sort())}`,
    )
    .join('; ');
}

function verdict(measures: ReturnType<typeof compare>[]): string {
  const slower = measures.filter((m) => m.slower).map((m) => m.name);
  if (slower.length)
    return `SLOWER at ${slower.join(', ')}: now lost in more rounds than chance explains (p < ${SIGNIFICANCE})`;
  const above = measures.filter((m) => m.above).map((m) => m.name);
  if (above.length)
    return `no slower within noise: now's median is above before's at ${above.join(', ')}, but it lost in no more rounds than chance gives at least ${SIGNIFICANCE * 100}% of the time`;
  return 'no slower: now is at or below before at every measure';
}

export function clicksMarkdown(opts: {
  rows: ClickRound[];
  applies: Record<DriftgateSide, number[]>;
  commits: Record<DriftgateSide, string>;
}): string {
  const { rows, applies, commits } = opts;
  const clicks = rows[0]?.now.length ?? 0;
  const at = (side: 'now' | 'before' | 'bolt', p: number) => rows.map((r) => percentile(r[side], p));
  const cell = (acks: number[], p: number) => fmt(percentile(acks, p));
  const lines = rows.map((r, i) =>
    [
      r.round,
      cell(r.now, 50),
      cell(r.now, 99),
      cell(r.bolt, 50),
      cell(r.bolt, 99),
      ratio(percentile(r.now, 99) / percentile(r.bolt, 99)),
      applies.now[i],
      cell(r.before, 50),
      cell(r.before, 99),
      ratio(percentile(r.now, 50) / percentile(r.before, 50)),
      ratio(percentile(r.now, 99) / percentile(r.before, 99)),
      applies.before[i],
      Math.round(r.cpuMs.now),
      Math.round(r.cpuMs.before),
    ].join(' | '),
  );
  const measures = [
    compare('ack p50', at('now', 50), at('before', 50), 'ms'),
    compare('ack p99', at('now', 99), at('before', 99), 'ms'),
    compare(
      'serve CPU per round',
      rows.map((r) => r.cpuMs.now),
      rows.map((r) => r.cpuMs.before),
      'ms',
    ),
  ];
  const worstP99 = Math.max(...at('now', 99));
  const allOnce = [...applies.now, ...applies.before].every((n) => n === 1);
  return [
    `### Slack: ${clicks} concurrent signed Approve clicks on one run`,
    '',
    `${clicks} distinct approvers (one approval needed) click Approve on the same run at the same moment, ${rows.length} rounds after one warm-up round not counted, each on a new drift and run. driftgate is \`driftgate serve\` in its own process; the clicks come from a third process, on connections opened beforehand (as Slack keeps them), as raw HTTP written all at once. Latency runs from writing a click to the first byte of its answer (the ack), in ms. "driftgate" is this checkout (${commits.now}, built to dist/). "before #28" is driftgate at ${commits.before}, the last commit before issue 28 (a structural refactor) began, compiled from git in the same run and started the same way (\`serve --config --port\`, the same config and environment) with a stack, data directory and Slack emulator of its own. "bare Bolt" is a Bolt app with the same receiver whose handler only acks. In each round the three sides take the same burst in turn: bare Bolt, then the two driftgates (which one first alternates between rounds), each driftgate's apply reported and its Slack calls over before the next burst. The first click's apply (real terraform) runs while the rest of the burst is answered. "CPU ms" is what the serve process itself spent from its burst until it was quiet again (connections, a warm-up request on each, the clicks, the apply's bookkeeping and messages; terraform's own CPU left out): less sensitive to the machine's other load than latency.`,
    '',
    '| round | driftgate p50 | driftgate p99 | bare Bolt p50 | bare Bolt p99 | p99 ratio | applies | before #28 p50 | before #28 p99 | p50 now/before | p99 now/before | applies before | CPU ms now | CPU ms before |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...lines.map((l) => `| ${l} |`),
    '',
    `Target: p99 under 100 ms and exactly one apply per run. Result: worst p99 ${fmt(worstP99)} ms — ${worstP99 < 100 ? 'PASS' : 'FAIL'}; applies ${allOnce ? 'exactly 1 in every round, on both driftgates — PASS' : `now ${applies.now.join(', ')}, before ${applies.before.join(', ')} — FAIL`}.`,
    '',
    `Before issue 28 (${commits.before}) against now (${commits.now}), over the ${rows.length} rounds in pairs:`,
    '',
    ...measures.map((m) => `- ${m.line}`),
    '',
    `Slack calls from a burst until quiet, both driftgates: ${sameCalls(rows)}.`,
    '',
    `Noise: one side's p99 between rounds ran ${spread(at('before', 99))} before issue 28, ${spread(at('now', 99))} now, ${spread(at('bolt', 99))} for bare Bolt (the same code each round). Verdict: ${verdict(measures)}.`,
    '',
    `Reading: a burst is answered one request after another on one event loop, so its p99 is about the time to take in all ${clicks}. Bare Bolt's p99 is the floor of Bolt and its signature checks; the p99 ratio says what driftgate adds to it (parsing, and the work the clicks start, which yields to the burst until it is acked).`,
  ].join('\n');
}

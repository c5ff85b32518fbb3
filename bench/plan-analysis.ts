/**
 * Benchmark: analysing the plan of a 10,000-resource stack must cost little next to terraform's own
 * `show -json`, and fit in memory. Today's analysis is timed beside the analysis as it was at each of
 * BASELINES (before issue 27 added relevant drift, structural JSON diffs and drift causes; before issue
 * 28's structural refactor), each compiled from git, on the same plan in the same run. Each analysis runs
 * in a child node process (plan-analysis-child.ts) so that only its memory counts in the peak RSS.
 */
import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { packageRoot } from '../src/cli/package-root.js';
import { BEFORE_ISSUE_28 } from './baselines.js';
import { median, type Paired, paired, pairedVerdict } from './paired.js';
import type { ChildReport } from './plan-analysis-child.js';
import { cloneState, stackSource, withDrift } from './plan-analysis-stack.js';

export const RESOURCE_COUNT = 10_000;
const ANALYSIS_SHARE_TARGET = 0.1;
const PEAK_RSS_TARGET_MB = 300;
/** `terraform show -json` is timed this many times, its median kept. */
const SHOW_RUNS = 3;
/**
 * Each side is timed this many times (each analysis in a fresh process, the sides in turn): medians in the
 * table, and before issue 28 against now run by run for the verdict (a run of each side is one pair).
 */
const RUNS = 11;
/** Earlier analyses timed beside today's, each compiled from git at its commit. */
const BASELINES = {
  /** The last commit before issue 27 changed the analysis: "today's" analysis in the issue's words. */
  before27: { title: 'before issue 27', commit: 'c040b27811aec949696c5a8605c5659fdbc7c55a' },
  before28: { title: 'before issue 28', commit: BEFORE_ISSUE_28 },
};
type Side = keyof typeof BASELINES | 'now';
const PLAN_ENTRIES = ['src/domain/plan/analyze.ts', 'src/domain/plan/schema.ts'];
/** What childMain loads for the drift causes, at the commits that have them (issue 27 added them). */
const CAUSES_ENTRIES = ['src/domain/drift-causes/decide.ts', 'src/domain/drift-causes/references.ts'];
const TOKEN = 'bench-sensitive-token-0123456789';

export interface PlanAnalysisBench {
  markdown: string;
  analysisMs: number;
  showMs: number;
  peakRssMb: number;
}

/** The compiled child script beside this file, or in dist/ when this runs from TypeScript. */
function childScript(): string {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.js')) return resolve(self, '../plan-analysis-child.js');
  const compiled = resolve(self, '../../dist/bench/plan-analysis-child.js');
  if (!existsSync(compiled))
    throw new Error(`benchPlanAnalysis needs the compiled ${compiled}: run \`npm run build\` first`);
  return compiled;
}

async function runChild(planJsonFile: string, modulesDir: string): Promise<ChildReport> {
  const { stdout } = await execa(process.execPath, [childScript(), planJsonFile, modulesDir]);
  return JSON.parse(stdout) as ChildReport;
}

function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'FAIL';
}

/** Half the range of `values` over their median: how far one side's runs strayed, the noise of a ratio. */
function spread(values: number[]): number {
  return (Math.max(...values) - Math.min(...values)) / 2 / median(values);
}

const coldOf = (c: ChildReport) => c.loadMs + c.analysisMs;

/** now against before issue 28, run by run: cold, warm and the peak RSS of each analysing process. */
function comparePairs(now: ChildReport[], before: ChildReport[]): Record<'cold' | 'warm' | 'rss', Paired> {
  const of = (measure: (c: ChildReport) => number) => paired(now.map(measure), before.map(measure));
  return { cold: of(coldOf), warm: of((c) => c.warmAnalysisMs), rss: of((c) => c.peakRssMb) };
}

function summarise(children: ChildReport[]) {
  const cold = children.map(coldOf);
  const warm = children.map((c) => c.warmAnalysisMs);
  const rss = children.map((c) => c.peakRssMb);
  return {
    ...children[0]!,
    loadMs: median(children.map((c) => c.loadMs)),
    analysisMs: median(children.map((c) => c.analysisMs)),
    warmAnalysisMs: median(warm),
    causesMs: median(children.map((c) => c.causesMs)),
    peakRssMb: Math.max(...rss),
    coldMs: median(cold),
    coldSpread: spread(cold),
    warmSpread: spread(warm),
    rssSpread: spread(rss),
  };
}

/** Each baseline's analysis modules (and drift-cause modules, where its commit has them), compiled from git. */
async function baselineDirs(
  root: string,
  workDir: string,
  { compileModulesAt, existsAt }: typeof import('./baseline-modules.js'),
): Promise<Record<keyof typeof BASELINES, string>> {
  const dirs = {} as Record<keyof typeof BASELINES, string>;
  for (const [side, { commit }] of Object.entries(BASELINES) as [keyof typeof BASELINES, { commit: string }][]) {
    const causes = await existsAt(root, commit, CAUSES_ENTRIES[0]!);
    const compiled = await compileModulesAt({
      root,
      commit,
      entries: [...PLAN_ENTRIES, ...(causes ? CAUSES_ENTRIES : [])],
      dir: join(workDir, side),
    });
    dirs[side] = join(compiled, 'src/domain/plan');
  }
  return dirs;
}

export async function benchPlanAnalysis(opts: {
  workDir: string;
  env: Record<string, string>;
}): Promise<PlanAnalysisBench> {
  const dir = join(opts.workDir, 'plan-analysis-stack');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'main.tf'), stackSource(RESOURCE_COUNT));
  const env = { ...opts.env, TF_VAR_token: TOKEN };
  const tf = (args: string[]) => execa('terraform', args, { cwd: dir, env, maxBuffer: 1024 * 1024 * 1024 });
  await tf(['init', '-input=false', '-no-color']);
  await tf(['apply', '-auto-approve', '-input=false', '-no-color', '-var', 'n=1']);
  await cloneState(dir, RESOURCE_COUNT, TOKEN);
  await tf(['plan', '-input=false', '-no-color', '-out=plan.tfplan']);

  let stdout = '';
  const shows: number[] = [];
  for (let i = 0; i < SHOW_RUNS; i++) {
    const started = performance.now();
    stdout = (await tf(['show', '-json', 'plan.tfplan'])).stdout;
    shows.push(performance.now() - started);
  }
  const showMs = median(shows);
  const planJsonFile = join(dir, 'plan.json');
  const { text, drifted } = withDrift(stdout);
  await writeFile(planJsonFile, text);
  const sizeMb = (await stat(planJsonFile)).size / 1024 / 1024;

  const root = packageRoot();
  // Loaded here: it brings the TypeScript compiler, which no other benchmark needs.
  const baseline = await import('./baseline-modules.js');
  const sides: Record<Side, string> = {
    ...(await baselineDirs(root, join(opts.workDir, 'baseline'), baseline)),
    now: resolve(dirname(childScript()), '../src/domain/plan'),
  };
  const order: Side[] = ['before27', 'before28', 'now'];
  const runs = { before27: [], before28: [], now: [] } as Record<Side, ChildReport[]>;
  // In turn, so that the machine's noise falls on every side alike.
  for (let i = 0; i < RUNS; i++) for (const side of order) runs[side].push(await runChild(planJsonFile, sides[side]));
  const before = summarise(runs.before27);
  const before28 = summarise(runs.before28);
  const now = summarise(runs.now);
  for (const [name, side] of Object.entries({ before, before28, now }))
    if (side.changes !== RESOURCE_COUNT)
      throw new Error(`${name}: analysis found ${side.changes} changes, expected ${RESOURCE_COUNT}`);
  for (const [name, side] of Object.entries({ before28, now }))
    if (side.causes !== RESOURCE_COUNT)
      throw new Error(
        `${name}: the analysis decided the causes of ${side.causes} resources, expected ${RESOURCE_COUNT}`,
      );
  if (now.jsonDiffs !== RESOURCE_COUNT)
    throw new Error(`the analysis diffed ${now.jsonDiffs} JSON attributes structurally, expected ${RESOURCE_COUNT}`);

  const budgetMs = showMs * ANALYSIS_SHARE_TARGET;
  const timePass = now.coldMs <= budgetMs;
  const rssPass = now.peakRssMb < PEAK_RSS_TARGET_MB;
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  const share = (ms: number) => `${f(ms)} ms (${((ms / showMs) * 100).toFixed(1)}% of show)`;
  const x = (a: number, b: number) => (a / b).toFixed(2);
  const pct = (n: number) => `±${Math.round(n * 100)}%`;
  const sha = (side: keyof typeof BASELINES) => BASELINES[side].commit.slice(0, 7);
  const head = await baseline.shortSha(root);
  const pairs = comparePairs(runs.now, runs.before28);
  const inPairs = (name: string, c: Paired) =>
    `${name} now/before ${c.medianRatio.toFixed(2)}× (median of the pairs), now more in ${c.lost} of ${RUNS} (sign test p = ${c.p.toFixed(2)})`;
  const markdown = [
    `## Plan analysis: ${f(RESOURCE_COUNT)} terraform_data resources`,
    '',
    `Plan JSON: ${sizeMb.toFixed(1)} MB, ${f(now.changes)} updates, each of a jsonencode()'d IAM policy (an action and a statement added, a statement written with lists where the state has strings), so every change gets a structural JSON diff; ${f(drifted)} drifted resources added to the plan JSON (terraform_data reports none): ${f(drifted / 2)} with the policy edited by hand, ${f(drifted / 2)} with normalisation noise only. ${now.secrets} secret(s) masked. Three analyses of that plan, compiled or built in the same run: "before issue 27" is the analysis at ${sha('before27')}, compiled from git; "before issue 28" is the analysis and drift causes at ${sha('before28')}, the last commit before issue 28 (a structural refactor) began, compiled from git; "now" is this checkout (${head}, built to dist/). Issue 27 added relevant drift only (now ${f(now.drift)} of ${f(before.drift)} drifted resources count), the structural JSON diffs, and the drift causes, decided here for every resource in the costliest case (the provider's version and the state moved since the last apply, an input every resource reads changed, each drifted resource named by a CloudTrail call); what changed in these modules since ${sha('before28')}: \`git diff --stat ${sha('before28')} ${head} -- src/domain\`. Medians of ${RUNS} runs, the three sides in turn (before issue 28 and now compared run by run below); each analysis (parse + analyse) runs in a fresh node process, so "cold" includes loading the analysis modules, JIT warm-up and heap growth, as a one-shot \`driftgate check\` pays them. "Warm" is what a long-running \`driftgate serve\` pays once it has analysed a plan before.`,
    '',
    `| measure | before issue 27 (${sha('before27')}) | before issue 28 (${sha('before28')}) | now (${head}) | now / before 28 | target (now) | result |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    `| \`terraform show -json\` (wall) | ${f(showMs)} ms | | | | | |`,
    `| parse + analyse, cold, module loading included | ${share(before.coldMs)} | ${share(before28.coldMs)} | ${share(now.coldMs)} | ${x(now.coldMs, before28.coldMs)} | ≤ ${ANALYSIS_SHARE_TARGET * 100}% of show (${f(budgetMs)} ms) | ${verdict(timePass)} |`,
    `| … of which loading the modules | ${f(before.loadMs)} ms | ${f(before28.loadMs)} ms | ${f(now.loadMs)} ms | ${x(now.loadMs, before28.loadMs)} | | |`,
    `| … of which the first parse + analyse | ${f(before.analysisMs)} ms | ${f(before28.analysisMs)} ms | ${f(now.analysisMs)} ms | ${x(now.analysisMs, before28.analysisMs)} | | |`,
    `| … … of which deciding every resource's drift causes | (none) | ${f(before28.causesMs)} ms | ${f(now.causesMs)} ms | ${x(now.causesMs, before28.causesMs)} | | |`,
    `| parse + analyse, warm | ${share(before.warmAnalysisMs)} | ${share(before28.warmAnalysisMs)} | ${share(now.warmAnalysisMs)} | ${x(now.warmAnalysisMs, before28.warmAnalysisMs)} | | |`,
    `| peak RSS of the analysing process (worst run) | ${f(before.peakRssMb)} MB | ${f(before28.peakRssMb)} MB | ${f(now.peakRssMb)} MB | ${x(now.peakRssMb, before28.peakRssMb)} | < ${PEAK_RSS_TARGET_MB} MB | ${verdict(rssPass)} |`,
    '',
    `Before issue 28 (${sha('before28')}) against now (${head}), run by run (each run of one side beside the other's, in turn): ${inPairs('cold', pairs.cold)}; ${inPairs('warm', pairs.warm)}; ${inPairs('peak RSS', pairs.rss)}. Noise: the ${RUNS} runs of one side strayed from their median by up to ${pct(before28.coldSpread)} cold, ${pct(before28.warmSpread)} warm and ${pct(before28.rssSpread)} in RSS before issue 28, ${pct(now.coldSpread)}, ${pct(now.warmSpread)} and ${pct(now.rssSpread)} now. Verdict ("slower" only where now lost in more pairs than chance gives 5% of the time): cold ${pairedVerdict(pairs.cold)}, warm ${pairedVerdict(pairs.warm)}, peak RSS ${pairedVerdict(pairs.rss)}.`,
    '',
  ].join('\n');
  return { markdown, analysisMs: now.coldMs, showMs, peakRssMb: now.peakRssMb };
}

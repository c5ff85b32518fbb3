/**
 * Benchmark: analysing the plan of a 10,000-resource stack must cost little next to terraform's own
 * `show -json`, and fit in memory. Today's analysis (relevant drift only, structural diffs of JSON-encoded
 * attributes: issue 27) is timed beside the analysis as it was before them, compiled from git at
 * BASELINE_COMMIT, on the same plan in the same run. Each analysis runs in a child node process (this
 * same file with `--child`) so that only its memory counts in the peak RSS.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { packageRoot } from '../src/cli/package-root.js';
import { cloneState, stackSource, withDrift } from './plan-analysis-stack.js';

export const RESOURCE_COUNT = 10_000;
const ANALYSIS_SHARE_TARGET = 0.1;
const PEAK_RSS_TARGET_MB = 300;
/** Each side is timed this many times (each analysis in a fresh process, the two sides in turn), medians compared. */
const RUNS = 3;
/** The last commit before issue 27 changed the analysis: "today's" analysis in the words. */
const BASELINE_COMMIT = 'c040b27811aec949696c5a8605c5659fdbc7c55a';
const TOKEN = 'bench-sensitive-token-0123456789';

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

export interface PlanAnalysisBench {
  markdown: string;
  analysisMs: number;
  showMs: number;
  peakRssMb: number;
}

interface ChildReport {
  /** Loading the analysis modules (and what they import) in the fresh process. */
  loadMs: number;
  /** The first parse + analysis once they are loaded. */
  analysisMs: number;
  warmAnalysisMs: number;
  peakRssMb: number;
  changes: number;
  drift: number;
  jsonDiffs: number;
  secrets: number;
  /** Deciding each resource's drift causes (issue 27, item 2), within analysisMs; 0 before they existed. */
  causesMs: number;
  /** Resources given causes. */
  causes: number;
}

interface CausesModules {
  decideDriftCauses(evidence: object): Record<string, { kind: string }[]>;
  variableReferences(plan: unknown): Map<string, Set<string>>;
}

/** The drift-cause modules beside the plan domain's directory, when that commit has them. */
async function causesModules(modulesDir: string): Promise<CausesModules | undefined> {
  const dir = join(modulesDir, '../drift-causes');
  if (!existsSync(join(dir, 'decide.js'))) return undefined;
  const { decideDriftCauses } = (await import(pathToFileURL(join(dir, 'decide.js')).href)) as CausesModules;
  const { variableReferences } = (await import(pathToFileURL(join(dir, 'references.js')).href)) as CausesModules;
  return { decideDriftCauses, variableReferences };
}

type AnalysedResource = { address: string; mode?: string; providerName: string; moduleAddress?: string };

/**
 * The causes of every resource of the plan, in the costliest case a check meets: the provider's version
 * and the state moved since the last apply, and an input every resource reads changed (so the plan's
 * configuration is walked for who reads it); every drifted resource is also named by a CloudTrail call.
 */
function decideAll(modules: CausesModules, plan: unknown, analysis: { changes: unknown[]; drift: unknown[] }): number {
  const drift = analysis.drift as AnalysedResource[];
  const drifted = new Set(drift.map((d) => d.address));
  const resources = new Map<string, object>();
  for (const r of [...drift, ...(analysis.changes as AnalysedResource[])])
    if (!resources.has(r.address))
      resources.set(r.address, { address: r.address, providerName: r.providerName, drifted: drifted.has(r.address) });
  const at = new Date('2026-12-01T10:00:00Z');
  const provider = (analysis.changes as AnalysedResource[])[0]?.providerName ?? '';
  const causes = modules.decideDriftCauses({
    resources: [...resources.values()],
    kind: 'drift',
    reference: {
      made: 'apply',
      runId: 'r_bench',
      at,
      evidence: { providers: { [provider]: '0.9.0' }, state: { serial: 1, lineage: 'l' } },
    },
    current: { providers: { [provider]: '1.0.0' }, state: { serial: 3, lineage: 'l' } },
    changedInputs: [{ source: 'env', name: 'token', change: 'changed' }],
    variableReferences: modules.variableReferences(plan),
    attribution: {
      status: 'found',
      changes: drift.map((d) => ({
        resource: d.address,
        principal: { display: 'alice' },
        how: 'console',
        eventName: 'PutRolePolicy',
        at,
      })),
    },
  });
  return Object.keys(causes).length;
}

/** The compiled file to run as the child: this one, or its dist/ twin when run from TypeScript. */
function childScript(): string {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.js')) return self;
  const compiled = resolve(self, '../../dist/bench/plan-analysis.js');
  if (!existsSync(compiled))
    throw new Error(`benchPlanAnalysis needs the compiled ${compiled}: run \`npm run build\` first`);
  return compiled;
}

async function runChild(planJsonFile: string, modulesDir: string): Promise<ChildReport> {
  const { stdout } = await execa(process.execPath, [childScript(), '--child', planJsonFile, modulesDir]);
  return JSON.parse(stdout) as ChildReport;
}

interface AnalysisModules {
  parsePlanJson(text: string): unknown;
  analyzePlan(plan: unknown): {
    analysis: { changes: { attributes: { json?: unknown }[] }[]; drift: unknown[] };
    redactor: { size: number };
  };
}

/**
 * Child side: the analysis modules of `modulesDir` (the plan domain's directory) loaded, then one cold
 * parse + analysis (what a fresh `driftgate check` pays), then warm ones. The modules are imported here,
 * timed, not at the top of this file.
 */
async function childMain(planJsonFile: string, modulesDir: string): Promise<void> {
  const text = await readFile(planJsonFile, 'utf8');
  const loading = performance.now();
  const { parsePlanJson } = (await import(pathToFileURL(join(modulesDir, 'schema.js')).href)) as AnalysisModules;
  const { analyzePlan } = (await import(pathToFileURL(join(modulesDir, 'analyze.js')).href)) as AnalysisModules;
  const causes = await causesModules(modulesDir);
  const started = performance.now();
  const loadMs = started - loading;
  const plan = parsePlanJson(text);
  const { analysis, redactor } = analyzePlan(plan);
  const causesStarted = performance.now();
  const causeCount = causes ? decideAll(causes, plan, analysis) : 0;
  const analysisMs = performance.now() - started;
  const causesMs = performance.now() - causesStarted;
  // Peak RSS of one analysis: read before the warm runs pile up their garbage.
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const again = parsePlanJson(text);
    const analysed = analyzePlan(again);
    if (causes) decideAll(causes, again, analysed.analysis);
    warm.push(performance.now() - t);
  }
  const report: ChildReport = {
    loadMs,
    analysisMs,
    warmAnalysisMs: warm.sort((a, b) => a - b)[1]!,
    peakRssMb,
    changes: analysis.changes.length,
    drift: analysis.drift.length,
    jsonDiffs: analysis.changes.filter((c) => c.attributes.some((a) => a.json !== undefined)).length,
    secrets: redactor.size,
    causesMs,
    causes: causeCount,
  };
  process.stdout.write(JSON.stringify(report));
}

function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'FAIL';
}

function summarise(children: ChildReport[]): ChildReport & { coldMs: number } {
  return {
    ...children[0]!,
    loadMs: median(children.map((c) => c.loadMs)),
    analysisMs: median(children.map((c) => c.analysisMs)),
    warmAnalysisMs: median(children.map((c) => c.warmAnalysisMs)),
    causesMs: median(children.map((c) => c.causesMs)),
    peakRssMb: Math.max(...children.map((c) => c.peakRssMb)),
    coldMs: median(children.map((c) => c.loadMs + c.analysisMs)),
  };
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
  for (let i = 0; i < RUNS; i++) {
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
  const { compileModulesAt } = await import('./baseline-modules.js');
  const baselineDir = await compileModulesAt({
    root,
    commit: BASELINE_COMMIT,
    entries: ['src/domain/plan/analyze.ts', 'src/domain/plan/schema.ts'],
    dir: join(opts.workDir, 'baseline'),
  });
  const sides = {
    before: join(baselineDir, 'src/domain/plan'),
    now: resolve(dirname(childScript()), '../src/domain/plan'),
  };
  const runs: Record<keyof typeof sides, ChildReport[]> = { before: [], now: [] };
  // In turn, so that the machine's noise falls on both sides alike.
  for (let i = 0; i < RUNS; i++)
    for (const side of ['before', 'now'] as const) runs[side].push(await runChild(planJsonFile, sides[side]));
  const before = summarise(runs.before);
  const now = summarise(runs.now);
  for (const [name, side] of Object.entries({ before, now }))
    if (side.changes !== RESOURCE_COUNT)
      throw new Error(`${name}: analysis found ${side.changes} changes, expected ${RESOURCE_COUNT}`);
  if (now.causes !== RESOURCE_COUNT)
    throw new Error(`the analysis decided the causes of ${now.causes} resources, expected ${RESOURCE_COUNT}`);
  if (now.jsonDiffs !== RESOURCE_COUNT)
    throw new Error(`the analysis diffed ${now.jsonDiffs} JSON attributes structurally, expected ${RESOURCE_COUNT}`);

  const budgetMs = showMs * ANALYSIS_SHARE_TARGET;
  const timePass = now.coldMs <= budgetMs;
  const rssPass = now.peakRssMb < PEAK_RSS_TARGET_MB;
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  const share = (ms: number) => `${f(ms)} ms (${((ms / showMs) * 100).toFixed(1)}% of show)`;
  const markdown = [
    `## Plan analysis: ${f(RESOURCE_COUNT)} terraform_data resources`,
    '',
    `Plan JSON: ${sizeMb.toFixed(1)} MB, ${f(now.changes)} updates, each of a jsonencode()'d IAM policy (an action and a statement added, a statement written with lists where the state has strings), so every change gets a structural JSON diff; ${f(drifted)} drifted resources added to the plan JSON (terraform_data reports none): ${f(drifted / 2)} with the policy edited by hand, ${f(drifted / 2)} with normalisation noise only. ${now.secrets} secret(s) masked. "Before issue 27" is the analysis at ${BASELINE_COMMIT.slice(0, 7)}, compiled from git in the same run; "now" adds relevant drift only (${f(now.drift)} of ${f(before.drift)} drifted resources count) and the structural JSON diffs, and decides every resource's drift causes in the costliest case (the provider's version and the state moved since the last apply, an input every resource reads changed, each drifted resource named by a CloudTrail call). Medians of ${RUNS} runs, the two sides in turn; each analysis (parse + analyse) runs in a fresh node process, so "cold" includes loading the analysis modules, JIT warm-up and heap growth, as a one-shot \`driftgate check\` pays them. "Warm" is what a long-running \`driftgate serve\` pays once it has analysed a plan before.`,
    '',
    '| measure | before issue 27 | now | target (now) | result |',
    '| --- | --- | --- | --- | --- |',
    `| \`terraform show -json\` (wall) | ${f(showMs)} ms | | | |`,
    `| parse + analyse, cold, module loading included | ${share(before.coldMs)} | ${share(now.coldMs)} | ≤ ${ANALYSIS_SHARE_TARGET * 100}% of show (${f(budgetMs)} ms) | ${verdict(timePass)} |`,
    `| … of which loading the modules | ${f(before.loadMs)} ms | ${f(now.loadMs)} ms | | |`,
    `| … of which the first parse + analyse | ${f(before.analysisMs)} ms | ${f(now.analysisMs)} ms | | |`,
    `| … … of which deciding every resource's drift causes | (none) | ${f(now.causesMs)} ms | | |`,
    `| parse + analyse, warm | ${share(before.warmAnalysisMs)} | ${share(now.warmAnalysisMs)} | | |`,
    `| peak RSS of the analysing process (worst run) | ${f(before.peakRssMb)} MB | ${f(now.peakRssMb)} MB | < ${PEAK_RSS_TARGET_MB} MB | ${verdict(rssPass)} |`,
    '',
  ].join('\n');
  return { markdown, analysisMs: now.coldMs, showMs, peakRssMb: now.peakRssMb };
}

if (process.argv[2] === '--child' && process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await childMain(process.argv[3]!, process.argv[4]!);
}

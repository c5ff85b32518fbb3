/**
 * Benchmark: analysing the plan of a 10,000-resource stack must cost little next to terraform's own
 * `show -json`, and fit in memory. The analysis runs in a child node process (this same file with
 * `--child`) so that only its memory counts in the peak RSS.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const RESOURCE_COUNT = 10_000;
const ANALYSIS_SHARE_TARGET = 0.1;
const PEAK_RSS_TARGET_MB = 300;
/** Both sides are timed this many times (each analysis in a fresh process) and the medians compared. */
const RUNS = 3;

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
  secrets: number;
}

/** Every resource carries a sensitive input, so masking by mark and by value is part of the cost. */
const STACK = `
variable "token" {
  type      = string
  sensitive = true
}
resource "terraform_data" "item" {
  count = ${RESOURCE_COUNT}
  input = {
    name  = "item-\${count.index}"
    tags  = { team = "bench", index = tostring(count.index) }
    ports = [80, 443]
    token = var.token
  }
}
`;

/** The compiled file to run as the child: this one, or its dist/ twin when run from TypeScript. */
function childScript(): string {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.js')) return self;
  const compiled = resolve(self, '../../dist/bench/plan-analysis.js');
  if (!existsSync(compiled))
    throw new Error(`benchPlanAnalysis needs the compiled ${compiled}: run \`npm run build\` first`);
  return compiled;
}

async function runChild(planJsonFile: string): Promise<ChildReport> {
  const { stdout } = await execa(process.execPath, [childScript(), '--child', planJsonFile]);
  return JSON.parse(stdout) as ChildReport;
}

/**
 * Child side: the analysis modules loaded, then one cold parse + analysis (what a fresh `driftgate check`
 * pays), then warm ones. The modules are imported here, timed, not at the top of this file.
 */
async function childMain(planJsonFile: string): Promise<void> {
  const text = await readFile(planJsonFile, 'utf8');
  const loading = performance.now();
  const { parsePlanJson } = await import('../src/domain/plan/schema.js');
  const { analyzePlan } = await import('../src/domain/plan/analyze.js');
  const started = performance.now();
  const loadMs = started - loading;
  const { analysis, redactor } = analyzePlan(parsePlanJson(text));
  const analysisMs = performance.now() - started;
  // Peak RSS of one analysis: read before the warm runs pile up their garbage.
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    analyzePlan(parsePlanJson(text));
    warm.push(performance.now() - t);
  }
  const report: ChildReport = {
    loadMs,
    analysisMs,
    warmAnalysisMs: warm.sort((a, b) => a - b)[1]!,
    peakRssMb,
    changes: analysis.changes.length,
    secrets: redactor.size,
  };
  process.stdout.write(JSON.stringify(report));
}

function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'FAIL';
}

export async function benchPlanAnalysis(opts: {
  workDir: string;
  env: Record<string, string>;
}): Promise<PlanAnalysisBench> {
  const dir = join(opts.workDir, 'plan-analysis-stack');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'main.tf'), STACK);
  const env = { ...opts.env, TF_VAR_token: 'bench-sensitive-token-0123456789' };
  const tf = (args: string[]) => execa('terraform', args, { cwd: dir, env, maxBuffer: 1024 * 1024 * 1024 });
  await tf(['init', '-input=false', '-no-color']);
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
  await writeFile(planJsonFile, stdout);
  const sizeMb = (await stat(planJsonFile)).size / 1024 / 1024;

  const children: ChildReport[] = [];
  for (let i = 0; i < RUNS; i++) children.push(await runChild(planJsonFile));
  const child: ChildReport = {
    loadMs: median(children.map((c) => c.loadMs)),
    analysisMs: median(children.map((c) => c.analysisMs)),
    warmAnalysisMs: median(children.map((c) => c.warmAnalysisMs)),
    peakRssMb: Math.max(...children.map((c) => c.peakRssMb)),
    changes: children[0]!.changes,
    secrets: children[0]!.secrets,
  };
  if (child.changes !== RESOURCE_COUNT)
    throw new Error(`analysis found ${child.changes} changes, expected ${RESOURCE_COUNT}`);
  const budgetMs = showMs * ANALYSIS_SHARE_TARGET;
  const coldMs = median(children.map((c) => c.loadMs + c.analysisMs));
  const timePass = coldMs <= budgetMs;
  const rssPass = child.peakRssMb < PEAK_RSS_TARGET_MB;
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  const markdown = [
    `## Plan analysis: ${f(RESOURCE_COUNT)} terraform_data resources`,
    '',
    `Plan JSON: ${sizeMb.toFixed(1)} MB, ${f(child.changes)} changes, ${child.secrets} secret(s) masked. Medians of ${RUNS} runs; each analysis (parse + analyse) runs in a fresh node process, so "cold" includes loading the analysis modules, JIT warm-up and heap growth, as a one-shot \`driftgate check\` pays them. "Warm" is what a long-running \`driftgate serve\` pays once it has analysed a plan before.`,
    '',
    '| measure | value | target | result |',
    '| --- | --- | --- | --- |',
    `| \`terraform show -json\` (wall) | ${f(showMs)} ms | | |`,
    `| parse + analyse, cold, module loading included | ${f(coldMs)} ms (${((coldMs / showMs) * 100).toFixed(1)}% of show) | ≤ ${ANALYSIS_SHARE_TARGET * 100}% of show (${f(budgetMs)} ms) | ${verdict(timePass)} |`,
    `| … of which loading the modules | ${f(child.loadMs)} ms | | |`,
    `| … of which the first parse + analyse | ${f(child.analysisMs)} ms | | |`,
    `| parse + analyse, warm | ${f(child.warmAnalysisMs)} ms (${((child.warmAnalysisMs / showMs) * 100).toFixed(1)}% of show) | | |`,
    `| peak RSS of the analysing process (worst run) | ${f(child.peakRssMb)} MB | < ${PEAK_RSS_TARGET_MB} MB | ${verdict(rssPass)} |`,
    '',
  ].join('\n');
  return { markdown, analysisMs: coldMs, showMs, peakRssMb: child.peakRssMb };
}

if (process.argv[2] === '--child' && process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await childMain(process.argv[3]!);
}

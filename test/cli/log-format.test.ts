import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, HAS_BUILD, NO_BUILD_REASON, runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let repo: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-logs-');
  repo = join(tf.dir, 'repo');
  await mkdir(join(repo, 'environments/dev/app'), { recursive: true });
  await writeFile(
    join(repo, 'environments/dev/app/main.tf'),
    'resource "terraform_data" "dns" {\n  input = { name = "app.dev" }\n}\n',
  );
  // No `log:` section: the config's level is the default, info.
  await writeFile(
    join(repo, 'driftgate.yml'),
    configYaml({
      dataDir: join(tf.dir, 'data'),
      // Never applied: planned as drift (+1), not reported as a stack with no state.
      defaults: { emptyState: 'plan' },
      discover: [{ glob: 'environments/*/*' }],
    }),
  );
  env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...tf.env };
});
afterAll(() => tf.cleanup());

describe('logs of the commands a person runs', () => {
  // The built CLI in its own process: whatever reaches the process's stderr, not only the CLI's stream.
  it.skipIf(!HAS_BUILD)(
    `check logs nothing below error by default: stdout is the report, stderr a line per stack checked (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`,
    async () => {
      const result = await execa('node', [BIN, 'check', 'dev/app'], {
        cwd: repo,
        env,
        extendEnv: false,
        reject: false,
      });
      expect(result.exitCode).toBe(2);
      expect(result.stdout.split('\n')[0]).toMatch(/^STACK +STATUS +RUN +CHANGES$/);
      expect(result.stderr).toMatch(/^\[1\/1\] dev\/app: DRIFTED \+1 \(\d+\.\ds\)$/);
    },
  );

  it('--log-level info shows info lines in the human format, on stderr', async () => {
    const result = await runCli(['check', 'dev/app', '--log-level', 'info'], { cwd: repo, env });
    expect(result.code).toBe(2);
    const lines = result.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => !l.startsWith('[1/1] '));
    expect(lines[0]).toMatch(
      /^info: plan finished {2}stack=dev\/app runId=r_\w+ initRan=(true|false) ms=\d+( reusedFrom=r_\w+)?$/,
    );
    for (const line of lines) expect(line).toMatch(/^(trace|debug|info|warn|error|fatal): /);
    expect(result.stdout.split('\n')[0]).toMatch(/^STACK +STATUS/);
  });

  it('--log-format json logs pino JSON lines at the config level, and nothing else', async () => {
    const result = await runCli(['check', 'dev/app', '--log-format=json'], { cwd: repo, env });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 30, msg: 'plan finished', stack: 'dev/app' });
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('--verbose shows info lines', async () => {
    const result = await runCli(['check', 'dev/app', '--verbose'], { cwd: repo, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^info: plan finished {2}stack=dev\/app /m);
  });
});

/**
 * What a new user hits first, through the real CLI: each message's first line exactly, and the exit code.
 * Real terraform where a plan runs; nothing stubbed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, HAS_BUILD, NO_BUILD_REASON, runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let repo: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-first-hour-');
  repo = join(tf.dir, 'repo');
  await mkdir(join(repo, 'ok'), { recursive: true });
  await writeFile(join(repo, 'ok/main.tf'), 'resource "terraform_data" "x" {\n  input = 1\n}\n');
  await mkdir(join(repo, 'broken'), { recursive: true });
  await writeFile(join(repo, 'broken/main.tf'), 'resource "terraform_data" "x" {\n  input = var.missing\n}\n');
  await writeFile(join(repo, 'a-file'), 'not a directory\n');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
});
afterAll(() => tf.cleanup());

const firstLine = (text: string) => text.split('\n')[0];

async function config(name: string, text: string): Promise<string> {
  const file = join(repo, name);
  await writeFile(file, text);
  return file;
}

const base = () => ({ dataDir: join(tf.dir, 'data'), log: { level: 'silent' as const } });

describe('a stack dir terraform cannot use (issue 12, point 2)', () => {
  it('says the same, under the same key, in validate and in check: a file and a missing dir', async () => {
    const file = await config(
      'dirs.yml',
      configYaml(base(), {
        stacks: [stackEntry('ok', 'ok'), stackEntry('f', 'a-file'), stackEntry('gone', 'nothere')],
      }),
    );
    const isFile = `stacks[1].dir: ${join(repo, 'a-file')} of stack "f" is a file, not a directory`;
    const missing = `stacks[2].dir: directory ${join(repo, 'nothere')} of stack "gone" does not exist`;

    const validate = await runCli(['validate', '--config', file], { cwd: repo, env });
    expect(validate.code).toBe(0);
    expect(validate.stdout.split('\n').slice(0, 2)).toEqual([`warning: ${isFile}`, `warning: ${missing}`]);

    const check = await runCli(['check', 'f', 'gone', '--config', file], { cwd: repo, env });
    expect(check.code).toBe(1);
    const report = check.stdout.split('\n');
    expect(report[report.indexOf('=== f: error') + 1]).toBe(isFile);
    expect(report[report.indexOf('=== gone: error') + 1]).toBe(missing);
  });
});

describe('validate reports everything in one run (point 3)', () => {
  it('shows schema errors, a broken CEL rule, a missing terraform binary and a missing stack dir together', async () => {
    const file = await config(
      'all-at-once.yml',
      configYaml(base(), {
        defaults: { concurrency: 0 },
        terraform: { binary: '/nonexistent/terraform' },
        stacks: [stackEntry('ok', 'ok'), stackEntry('gone', 'nothere')],
        policies: { rules: [{ name: 'big', when: 'resource.after.size >', effect: 'deny' }] },
      }),
    );
    const result = await runCli(['validate', '--config', file], { cwd: repo, env });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('error: defaults.concurrency: must be greater than 0');
    expect(lines[1]).toBe('error: policies.rules[0].when: rule "big": Unexpected token: EOF at line 1, column 22');
    expect(lines.at(-2)).toBe(
      `warning: stacks[1].dir: directory ${join(repo, 'nothere')} of stack "gone" does not exist`,
    );
    expect(lines.at(-3)).toBe(
      'error: terraform.binary: terraform binary "/nonexistent/terraform" was not found or is not executable (config key terraform.binary); install it or set terraform.binary to its path',
    );
    expect(lines.at(-1)).toBe(`${file}: 3 errors, 1 warning`);
  });
});

describe('the check table says why a stack failed (point 4)', () => {
  it("shows terraform's Error line, not the heading above it", async () => {
    const file = await config('broken.yml', configYaml(base(), { stacks: [stackEntry('broken', 'broken')] }));
    const result = await runCli(['check', 'broken', '--config', file], { cwd: repo, env });
    expect(result.code).toBe(1);
    const row = result.stdout.split('\n')[1]!;
    expect(row).toMatch(/^broken\s+ERROR\s+r_\S+\s+Error: Reference to undeclared input variable$/);
  });
});

describe('a config with nothing to check (point 8)', () => {
  it('refuses an empty or comment-only file, saying how to add a stack', async () => {
    const file = await config('empty.yml', '# driftgate\n\n# stacks to come\n');
    const validate = await runCli(['validate', '--config', file], { cwd: repo, env });
    expect(validate.code).toBe(1);
    expect(firstLine(validate.stderr)).toBe(
      'error: the config file is empty: it needs "version: 1" and stacks, listed under "stacks:" (each with a name and a dir) or found by "discover:" (a glob such as environments/*/*)',
    );
    const check = await runCli(['check', '--all', '--config', file], { cwd: repo, env });
    expect(check.code).toBe(1);
    expect(check.stderr.split('\n').slice(0, 2)).toEqual([
      `driftgate check: invalid config ${file}:`,
      expect.stringMatching(/^ {2}the config file is empty: /),
    ]);
  });

  it('requires version: and a stack', async () => {
    const file = await config('no-version.yml', `dataDir: ${join(tf.dir, 'data')}\n`);
    const result = await runCli(['validate', '--config', file], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      'error: version: required: add "version: 1" at the top of the file',
      'error: stacks: no stacks: list them under "stacks:" (each with a name and a dir, e.g. "- { name: prod/app, dir: environments/prod/app }") or find them with "discover:" (e.g. "- glob: environments/*/*")',
    ]);
  });
});

describe('discovery that finds nothing (point 8; issue 25, point 15)', () => {
  it('is an error naming the glob in validate and check, not "ok, 0 stacks" or an empty table and exit 0', async () => {
    const file = await config('discover-nothing.yml', configYaml(base(), { discover: [{ glob: 'environments/*/*' }] }));
    const error = `discover[0].glob: "environments/*/*" matched no directory holding *.tf files (relative to ${dirname(file)}), and no stack is listed under "stacks:": nothing to check`;
    const result = await runCli(['check', '--all', '--config', file], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([`driftgate check: invalid config ${file}:`, `  ${error}`]);
    const validate = await runCli(['validate', '--config', file], { cwd: repo, env });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`error: ${error}\n`);
  });
});

describe('serve fails fast and says why (points 1 and 13)', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('names the port in use and exits 1, with nothing left running', async () => {
    const file = await config('serve.yml', configYaml(base(), { stacks: [stackEntry('ok', 'ok')] }));
    const result = await runCli(['serve', '--config', file, '--port', String(port)], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `driftgate serve: port ${port} is already in use (--port): stop what listens there or choose another port\n`,
    );
    const fromEnv = await runCli(['serve', '--config', file], { cwd: repo, env: { ...env, PORT: String(port) } });
    expect(firstLine(fromEnv.stderr)).toBe(
      `driftgate serve: port ${port} is already in use (PORT): stop what listens there or choose another port`,
    );
  });

  it('says so for METRICS_ADDRESS too', async () => {
    const file = await config('serve-metrics.yml', configYaml(base(), { stacks: [stackEntry('ok', 'ok')] }));
    const metricsEnv = { ...env, METRICS_ADDRESS: `:${port}` };
    const result = await runCli(['serve', '--config', file, '--port', '0'], { cwd: repo, env: metricsEnv });
    expect(result.code).toBe(1);
    expect(firstLine(result.stderr)).toBe(
      `driftgate serve: port ${port} is already in use (METRICS_ADDRESS): stop what listens there or choose another port`,
    );
  });

  it.skipIf(!HAS_BUILD)(
    `as a process, exits 1 instead of staying up (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`,
    async () => {
      const file = await config('serve-process.yml', configYaml(base(), { stacks: [stackEntry('ok', 'ok')] }));
      const result = await execa('node', [BIN, 'serve', '--config', file, '--port', String(port)], {
        cwd: repo,
        env,
        extendEnv: false,
        reject: false,
        timeout: 30_000,
      });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(1);
      expect(firstLine(result.stderr)).toBe(
        `driftgate serve: port ${port} is already in use (--port): stop what listens there or choose another port`,
      );
    },
  );

  it('reports every Slack problem at once, in its own words', async () => {
    const file = await config('serve-slack.yml', configYaml(base(), { stacks: [stackEntry('ok', 'ok')] }));
    const slackEnv = { ...env, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'short' };
    const result = await runCli(['serve', '--config', file, '--port', '0'], { cwd: repo, env: slackEnv });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'driftgate serve: Slack is on (SLACK_BOT_TOKEN is set) but cannot start:',
      "  env.SLACK_SIGNING_SECRET: is too short for a signing secret (Slack's are 32 characters): copy it from the app's Basic Information page",
      '  slack: is required when SLACK_BOT_TOKEN is set: at least slack.defaultChannel, where alerts go',
    ]);
  });

  it("reports the file's errors and the Slack variables' together, without zod's wording", async () => {
    const file = await config(
      'serve-bad.yml',
      configYaml(base(), { defaults: { concurrency: 0 }, stacks: [stackEntry('ok', 'ok')] }),
    );
    const slackEnv = { ...env, SLACK_BOT_TOKEN: 'xoxb-test' };
    const result = await runCli(['serve', '--config', file, '--port', '0'], { cwd: repo, env: slackEnv });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `driftgate serve: invalid config ${file}:`,
      '  defaults.concurrency: must be greater than 0',
      '  env.SLACK_SIGNING_SECRET: is required in HTTP mode (set SLACK_APP_TOKEN to use Socket Mode instead)',
    ]);
  });
});

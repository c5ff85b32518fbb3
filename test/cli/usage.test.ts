import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const env = { PATH: process.env.PATH, HOME: process.env.HOME };
const cwd = import.meta.dirname;
const firstLine = (text: string) => text.split('\n')[0];
const version = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }
).version;

describe('driftgate --version and --help', () => {
  it.each([['--version'], ['-v'], ['version']])('%s prints the version from package.json', async (flag) => {
    const result = await runCli([flag], { cwd, env });
    expect(result).toEqual({ code: 0, stdout: `driftgate ${version}\n`, stderr: '' });
  });

  it.each([
    [['check', '--help'], 'Usage: driftgate check [STACK|GLOB ...] [--all] [--json] [--no-wait] [--config FILE]'],
    [['check', 'prod/*', '-h'], 'Usage: driftgate check [STACK|GLOB ...] [--all] [--json] [--no-wait] [--config FILE]'],
    [['help', 'baseline'], 'Usage: driftgate baseline STACK [--commit SHA] [--config FILE]'],
    [['serve', '--help'], 'Usage: driftgate serve [--config FILE] [--port N] [--agent-port N]'],
    [['demo', '--help'], 'Usage: driftgate demo [--keep]'],
  ])('%j prints that command’s help, exit 0', async (argv, first) => {
    const result = await runCli(argv, { cwd, env });
    expect(result.code).toBe(0);
    expect(firstLine(result.stdout)).toBe(first);
    expect(result.stdout).toContain('--log-format human|json');
    expect(result.stderr).toBe('');
  });

  it('lists the options of a command with what each means', async () => {
    const { stdout } = await runCli(['baseline', '--help'], { cwd, env });
    expect(stdout).toMatch(
      /^ {2}--commit SHA +the commit to record, 7 to 64 hex characters; default the branch head$/m,
    );
    expect(stdout).toMatch(/^Record a commit \(default: the branch head\) as last applied/m);
  });
});

describe('usage errors', () => {
  it.each([
    [
      ['baseline', 'prod/app', '--commit', 'abc123'],
      'driftgate baseline: --commit "abc123" has 6 characters: a commit sha has 7 to 64 hex characters',
      'usage: driftgate baseline STACK [--commit SHA] [--config FILE]',
      'baseline',
    ],
    [
      ['baseline', 'prod/app', '--commit', 'main'],
      'driftgate baseline: --commit "main" is not a commit sha: only hex digits (0-9, a-f)',
      'usage: driftgate baseline STACK [--commit SHA] [--config FILE]',
      'baseline',
    ],
    [
      ['check'],
      'driftgate check: name one or more stacks, or use --all',
      'usage: driftgate check [STACK|GLOB ...] [--all] [--json] [--no-wait] [--config FILE]',
      'check',
    ],
    [
      ['check', '--al'],
      'driftgate check: Unknown option \'--al\'; did you mean "--all"?',
      'usage: driftgate check [STACK|GLOB ...] [--all] [--json] [--no-wait] [--config FILE]',
      'check',
    ],
    [
      ['check', '--all', '--log-format', 'xml'],
      'driftgate check: --log-format takes human or json',
      'usage: driftgate check [STACK|GLOB ...] [--all] [--json] [--no-wait] [--config FILE]',
      'check',
    ],
  ])('%j prints the message, the one usage line and the --help hint', async (argv, first, usage, name) => {
    const result = await runCli(argv, { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${first}\n${usage}\nRun 'driftgate ${name} --help' for its options.\n`);
  });

  it('names the closest command for an unknown one', async () => {
    const result = await runCli(['chek', '--all'], { cwd, env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `driftgate: unknown command "chek"; did you mean "check"?\nRun 'driftgate --help' for the commands.\n`,
    });
  });
});

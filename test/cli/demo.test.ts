import { existsSync, realpathSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { messageProblems } from '../../src/slack/limits.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';

/** This machine's PATH less any dir holding a `driftgate` (a developer's npm link): the demo must name it by path. */
const PATH_WITHOUT_DRIFTGATE = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !existsSync(join(dir, 'driftgate')))
  .join(delimiter);

describe.skipIf(!HAS_BUILD)(`driftgate demo (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('applies the examples, drifts three stacks by hand and reports exactly those, masking the password, and previews the Slack alert', async () => {
    // The machine's TF_CLI_CONFIG_FILE may point at a missing file: the demo must not depend on it.
    const env = {
      PATH: PATH_WITHOUT_DRIFTGATE,
      HOME: process.env.HOME,
      TF_CLI_CONFIG_FILE: '/nonexistent/terraformrc',
      NO_COLOR: '1',
    };
    const secret = 'demo-secret-from-the-environment';
    const result = await execa('node', [BIN, 'demo'], {
      env: { ...env, DEMO_DB_PASSWORD: secret },
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const rows = result.stdout.split('\n').filter((l) => /^(dev|staging|prod)\//.test(l));
    const status = Object.fromEntries(rows.map((l) => l.split(/\s+/).slice(0, 2)));
    expect(status).toEqual({
      'dev/app': 'DRIFTED',
      'dev/database': 'in',
      'dev/networking': 'in',
      'prod/app': 'in',
      'prod/database': 'DRIFTED',
      'prod/networking': 'in',
      'staging/app': 'in',
      'staging/database': 'in',
      'staging/networking': 'DRIFTED',
    });
    expect(result.stdout).toMatch(/input\.instance_class\s+= "db\.r6g\.2xlarge" -> "db\.r6g\.xlarge"/);
    expect(result.stdout).toMatch(/input\.ingress\[1\]\.cidr_blocks\[0\]\s+= "0\.0\.0\.0\/0" -> "10\.0\.0\.0\/8"/);
    expect(result.stdout).toContain('(sensitive value)');
    expect(result.stdout + result.stderr).not.toContain(secret);
    expect(result.stderr).not.toMatch(/Unable to open CLI configuration file/);

    // The Slack preview outlives the demo's temp dir, in a temp dir of its own.
    const file = /^Slack message JSON: (.+)$/m.exec(result.stdout)?.[1];
    expect(file, result.stdout).toMatch(/driftgate-demo-slack-alert\.json$/);
    onTestFinished(() => rm(dirname(file!), { recursive: true, force: true }));
    const json = await readFile(file!, 'utf8');
    const message = JSON.parse(json) as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(messageProblems(message)).toEqual([]);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Drift detected in prod/database' } });
    // Thousands of characters: not printed, but in a page beside the JSON that forwards to it.
    const page = /^Block Kit Builder: (file:\S+) \(a page that opens it there\)$/m.exec(result.stdout)?.[1];
    expect(page, result.stdout).toBeDefined();
    expect(result.stdout).not.toContain('https://app.slack.com/block-kit-builder');
    const html = await readFile(fileURLToPath(page!), 'utf8');
    const url = /<a href="([^"]+)">/.exec(html)?.[1]?.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    expect(url, html).toMatch(/^https:\/\/app\.slack\.com\/block-kit-builder#/);
    expect(JSON.parse(decodeURIComponent(new URL(url!).hash.slice(1)))).toEqual({ blocks: message.blocks });
    expect(json).not.toContain(secret);
    // driftgate is not on this PATH: the hint runs it by its path.
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Run \`node ${realpathSync(BIN)} demo --keep\` to keep the demo directory and try \`driftgate check\` on it.`,
    );
  });

  it('with --keep, ends with a command that works where it is run: `driftgate` when that is on the PATH', async () => {
    // What `npm link` makes: an executable `driftgate` on the PATH that is this build.
    const bin = await mkdtemp(join(tmpdir(), 'driftgate-demo-bin-'));
    onTestFinished(() => rm(bin, { recursive: true, force: true }));
    await chmod(BIN, 0o755);
    await symlink(BIN, join(bin, 'driftgate'));
    const env = { PATH: `${bin}${delimiter}${process.env.PATH}`, HOME: process.env.HOME, NO_COLOR: '1' };
    const demo = await execa('node', [BIN, 'demo', '--keep'], { env, extendEnv: false, reject: false });
    expect(demo.exitCode, demo.stderr).toBe(0);
    expect(demo.stderr).toBe('');
    const last = demo.stdout.trimEnd().split('\n').at(-1)!;
    const work = /^Try it yourself: cd (\S+) && driftgate check --all$/.exec(last)?.[1];
    expect(work, last).toBeDefined();
    onTestFinished(() => rm(work!, { recursive: true, force: true }));

    const tried = await execa('sh', ['-c', last.slice('Try it yourself: '.length)], {
      env,
      extendEnv: false,
      reject: false,
    });
    expect(tried.exitCode, tried.stderr).toBe(2);
    expect(tried.stdout.split('\n')[0]).toMatch(/^STACK +STATUS +RUN +CHANGES$/);
    expect(tried.stdout).toMatch(/^prod\/database +DRIFTED /m);
    // A line per stack as it finishes, and nothing else.
    for (const line of tried.stderr.split('\n'))
      expect(line).toMatch(/^\[\d\/9\] \S+: [A-Za-z ]+( \S+)* \(\d+\.\ds\)$/);
  });
});

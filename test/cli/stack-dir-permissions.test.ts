/**
 * Stack dirs driftgate's user may not read or write (issue 12, point 2), through the built CLI in a process
 * of its own. Root passes every permission check (CAP_DAC_OVERRIDE), so as root the CLI runs under
 * `setpriv` with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped: still uid 0 and the owner of every file
 * here, but held to the mode bits like any user. As another user it runs as it is.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const IS_ROOT = process.getuid?.() === 0;
const HAS_SETPRIV = (() => {
  try {
    execFileSync('setpriv', ['--bounding-set=-dac_override,-dac_read_search', 'true']);
    return true;
  } catch {
    return false;
  }
})();
const SKIP = !HAS_BUILD ? NO_BUILD_REASON : IS_ROOT && !HAS_SETPRIV ? 'root without a working setpriv' : '';
const AS_USER = IS_ROOT ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', 'node'] : ['node'];

let tf: TestTerraformEnv;
let repo: string;
let file: string;

async function driftgate(...args: string[]) {
  const [command, ...prefix] = AS_USER;
  const withConfig = args.includes('--config') ? args : [...args, '--config', file];
  return execa(command!, [...prefix, BIN, ...withConfig], {
    cwd: repo,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env },
    extendEnv: false,
    reject: false,
  });
}

describe.skipIf(SKIP !== '')(`stack dirs driftgate may not use (${SKIP || 'built CLI, held to mode bits'})`, () => {
  beforeAll(async () => {
    tf = await makeTerraformEnv('driftgate-dir-modes-');
    repo = join(tf.dir, 'repo');
    for (const dir of ['unreadable', 'read-only']) {
      await mkdir(join(repo, dir), { recursive: true });
      await writeFile(join(repo, dir, 'main.tf'), 'resource "terraform_data" "x" {\n  input = 1\n}\n');
    }
    await mkdir(join(repo, 'envs/open'), { recursive: true });
    await writeFile(join(repo, 'envs/open/main.tf'), 'resource "terraform_data" "x" {\n  input = 1\n}\n');
    await mkdir(join(repo, 'envs/locked'), { recursive: true });
    await writeFile(join(repo, 'envs/locked/main.tf'), 'resource "terraform_data" "x" {\n  input = 1\n}\n');
    await chmod(join(repo, 'envs/locked'), 0o000);
    await chmod(join(repo, 'unreadable'), 0o000);
    await chmod(join(repo, 'read-only'), 0o555);
    file = join(repo, 'driftgate.yml');
    await writeFile(
      file,
      configYaml({
        dataDir: join(tf.dir, 'data'),
        log: { level: 'silent' },
        stacks: [stackEntry('unreadable', 'unreadable'), stackEntry('read-only', 'read-only')],
      }),
    );
  });
  afterAll(async () => {
    await chmod(join(repo, 'unreadable'), 0o755);
    await chmod(join(repo, 'envs/locked'), 0o755);
    await tf.cleanup();
  });

  const unreadable = () =>
    `stacks[0].dir: directory ${join(repo, 'unreadable')} of stack "unreadable" cannot be read (permission denied to the user driftgate runs as): terraform runs in it and reads its *.tf files`;
  const readOnly = () =>
    `stacks[1].dir: directory ${join(repo, 'read-only')} of stack "read-only" is not writable (permission denied to the user driftgate runs as): terraform init writes .terraform and .terraform.lock.hcl there`;

  it('validate warns with the path, the stack and what is wrong', async () => {
    const result = await driftgate('validate');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([`warning: ${unreadable()}`, `warning: ${readOnly()}`]);
  });

  it('check errors those stacks in the same words, not as a missing terraform binary or a stack trace', async () => {
    const result = await driftgate('check', '--all');
    expect(result.exitCode).toBe(1);
    const report = result.stdout.split('\n');
    expect(report[report.indexOf('=== unreadable: error') + 1]).toBe(unreadable());
    expect(report[report.indexOf('=== read-only: error') + 1]).toBe(readOnly());
    expect(result.stdout).not.toMatch(/terraform\.binary|unexpected error/);
  });

  it('validate names a discovered dir it may not read, instead of leaving the stack out silently', async () => {
    const discovering = join(repo, 'discover.yml');
    await writeFile(
      discovering,
      configYaml({ dataDir: join(tf.dir, 'data'), log: { level: 'silent' }, discover: [{ glob: 'envs/*' }] }),
    );
    const result = await driftgate('validate', '--config', discovering);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      `warning: discover[0].glob: directory ${join(repo, 'envs/locked')} of stack "locked" cannot be read (permission denied to the user driftgate runs as): terraform runs in it and reads its *.tf files`,
      `${discovering}: ok, 1 stack, 1 warning`,
    ]);
  });
});

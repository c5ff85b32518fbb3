/**
 * The data dir a process may not write (issue 25, point 3): the image's user (uid 10001) beside a
 * repository or ConfigMap it may only read. The built CLI runs as that uid (execa's `uid`, so the test
 * needs root); it says which dir, for which uid, and how to give it one, without a stack trace; and
 * `DRIFTGATE_DATA_DIR` (which the image sets to its volume) puts the data dir where it may write.
 */
import { access, chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const UID = 10001;
const IS_ROOT = process.getuid?.() === 0;
const SKIP = !HAS_BUILD ? NO_BUILD_REASON : !IS_ROOT ? 'not root: cannot run the CLI as another uid' : '';

let tf: TestTerraformEnv;
let repo: string;
let volume: string;

const checkAs = (env: Record<string, string> = {}) =>
  execa('node', [BIN, 'check', '--all', '--config', join(repo, 'driftgate.yml')], {
    cwd: repo,
    uid: UID,
    gid: UID,
    env: { PATH: process.env.PATH, HOME: volume, ...tf.env, ...env },
    extendEnv: false,
    reject: false,
  });

describe.skipIf(SKIP !== '')(`a data dir the process may not write (${SKIP || `built CLI as uid ${UID}`})`, () => {
  beforeAll(async () => {
    tf = await makeTerraformEnv('driftgate-data-dir-');
    await chmod(tf.dir, 0o755);
    // The repository as a read-only mount shows it: root's, readable by all, writable by none but root.
    repo = join(tf.dir, 'repo');
    await mkdir(join(repo, 'app'), { recursive: true, mode: 0o755 });
    await writeFile(join(repo, 'app', 'main.tf'), 'resource "terraform_data" "x" {\n  input = 1\n}\n');
    await writeFile(join(repo, 'driftgate.yml'), configYaml({ stacks: [stackEntry('app', 'app')] }));
    volume = join(tf.dir, 'volume');
    await mkdir(volume);
    await chown(volume, UID, UID);
  });

  afterAll(async () => {
    await tf?.cleanup();
  });

  it('names the dir, the uid and the fix, with no stack trace', async () => {
    const result = await checkAs();
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`the data dir ${join(repo, '.driftgate')} cannot be created or written`);
    expect(result.stderr).toContain(`permission denied for uid ${UID}`);
    expect(result.stderr).toContain('no dataDir in');
    expect(result.stderr).toContain('DRIFTGATE_DATA_DIR');
    expect(result.stderr).toContain('-v driftgate-data:/var/lib/driftgate');
    expect(result.stderr).not.toMatch(/unexpected error|EACCES|\n\s+at /);
  });

  it('keeps its data in DRIFTGATE_DATA_DIR when the config sets no dataDir', async () => {
    const result = await checkAs({ DRIFTGATE_DATA_DIR: volume });
    expect(result.stderr).not.toContain('cannot be created or written');
    await access(join(volume, 'driftgate.db'));
  });
});

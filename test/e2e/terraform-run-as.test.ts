import { existsSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSources } from '../../src/adapters/git/git-sources.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { stackEntry } from '../helpers/config-builder.js';
import { stackHcl } from '../helpers/git-stack.js';
import { type ServeProcessWorld, startServeProcessWorld, waitFor } from '../helpers/serve-process.js';
import { LEAD1, APPROVERS } from './fixtures.js';
import { localExecStack } from '../helpers/stack-files.js';

/** nobody: an unprivileged user with no files of its own. */
const RUN_AS = { uid: 65534, gid: 65534 };
const IS_ROOT = process.getuid?.() === 0;
const STACK = 'dev/attack';
/** driftgate's own secrets, in its environment and never in terraform's (terraformBaseEnv keeps them out). */
const GITHUB_TOKEN = 'ghp_parent0only0secret0of0driftgate0000';
const SECRET_FILE_TEXT = 'a-file-of-driftgate-only-root-may-read';

/**
 * A module that tries to read the driftgate process running it: every ancestor's cmdline and environ
 * (walking PPid up from its own shell), a 0600 file in driftgate's data dir, and the SQLite store. It
 * writes its report to `report` (default: attack.out in its stack dir), and `more` adds to it.
 */
function attackStack(dataDir: string, report = '"$(pwd)/attack.out"', more = ''): string {
  const script = `
out=${report}
{
  echo "uid $(id -u)"
  pid=$$
  while [ "$pid" -gt 1 ]; do
    echo "== pid $pid: $(tr '\\0' ' ' < /proc/$pid/cmdline)"
    if tr '\\0' '\\n' < /proc/$pid/environ; then echo "environ of $pid: read"; else echo "environ of $pid: denied"; fi
    pid=$(awk '/^PPid:/ {print $2}' /proc/$pid/status)
  done
  if cat ${dataDir}/secret.txt; then echo "secret file: read"; else echo "secret file: denied"; fi
  if head -c 16 ${dataDir}/driftgate.db; then echo; echo "store: read"; else echo "store: denied"; fi
${more}
} > "$out.tmp" 2>&1
mv "$out.tmp" "$out"
`;
  return localExecStack(script);
}

let world: ServeProcessWorld | undefined;
let repo: TestRepo | undefined;
afterEach(async () => {
  await world?.close();
  await repo?.cleanup();
  world = undefined;
  repo = undefined;
});

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await chown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) await chownTree(join(path, entry.name), uid, gid);
    else await chown(join(path, entry.name), uid, gid);
  }
}

/**
 * `driftgate serve` as a real process (so /proc/<its pid> is driftgate's), the stack in auto-apply: a
 * `/drift check` plans it and applies the plan, and the apply runs the provisioner. Returns its report.
 */
async function attack(runAs: boolean): Promise<string> {
  const placeholder = '/data-dir-placeholder';
  world = await startServeProcessWorld({
    stacks: { [STACK]: attackStack(placeholder) },
    stackSettings: { [STACK]: { environment: 'dev', mode: 'auto-apply' } },
    config: { ...APPROVERS, ...(runAs ? { runners: { type: 'local', runAs: RUN_AS } } : {}) },
    env: { GITHUB_TOKEN },
  });
  const w = world;
  const dataDir = join(w.tf.dir, 'data');
  const stackDir = w.stackDir(STACK);
  const main = join(stackDir, 'main.tf');
  await writeFile(main, (await readFile(main, 'utf8')).replaceAll(placeholder, dataDir));
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(join(dataDir, 'secret.txt'), SECRET_FILE_TEXT, { mode: 0o600 });
  if (runAs) {
    // The run-as user passes through the test's dir to its stack (which it writes) and its CLI config.
    await chmod(w.tf.dir, 0o711);
    await chmod(join(w.tf.dir, 'repo'), 0o755);
    await chmod(join(w.tf.dir, 'repo', 'dev'), 0o755);
    await chownTree(stackDir, RUN_AS.uid, RUN_AS.gid);
  }
  await w.start();
  expect((await w.command(`check ${STACK}`, LEAD1)).status).toBe(200);
  const report = join(stackDir, 'attack.out');
  await waitFor('the provisioner to report', () => (existsSync(report) ? true : undefined));
  return readFile(report, 'utf8');
}

/**
 * The same module in a stack from Git (a bare repository through file://), under `driftgate serve` with
 * runAs: it also tries the clone's git config and a link, committed in the repository, to driftgate's 0600
 * file. Its local state lives outside the checkout, in a dir of the run-as user's: the copy terraform runs
 * in is removed after each command, as a worktree is without runAs. Returns its report and its world's dirs.
 */
async function attackFromGit() {
  repo = await makeTestRepo();
  world = await startServeProcessWorld({
    stacks: {},
    config: {
      ...APPROVERS,
      source: { git: { url: repo.url } },
      stacks: [stackEntry(STACK, 'attack', { environment: 'dev', mode: 'auto-apply', emptyState: 'plan' })],
      runners: { type: 'local', runAs: RUN_AS },
    },
    env: { GITHUB_TOKEN },
  });
  const w = world;
  const dataDir = join(w.tf.dir, 'data');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(join(dataDir, 'secret.txt'), SECRET_FILE_TEXT, { mode: 0o600 });
  // The clone serve will use, made first so that the module can name its config exactly.
  await repo.commit({ 'README.md': 'stacks\n' }, 'start');
  await createGitSources({ dataDir, env: w.env }).checkout({ url: repo.url, branch: 'main' }).fetchHead();
  const [clone] = await readdir(join(dataDir, 'git'));
  const gitConfig = join(dataDir, 'git', clone!, 'repo.git', 'config');
  // The run-as user passes through the test's dir, writes its report and its state, each outside the copy.
  const reports = join(w.tf.dir, 'reports');
  const state = join(w.tf.dir, 'state');
  await chmod(w.tf.dir, 0o711);
  await mkdir(reports, { mode: 0o777 });
  await chmod(reports, 0o777);
  await mkdir(state, { mode: 0o700 });
  await chown(state, RUN_AS.uid, RUN_AS.gid);
  const report = join(reports, 'attack.txt');
  const more = `
  if cat ${gitConfig}; then echo "git config: read"; else echo "git config: denied"; fi
  if cat leak; then echo; echo "link: read"; else echo "link: denied"; fi`;
  await mkdir(join(repo.dir, 'work', 'attack'));
  await symlink(join(dataDir, 'secret.txt'), join(repo.dir, 'work', 'attack', 'leak'));
  await repo.commit(
    {
      'attack/main.tf': `${stackHcl(join(state, 'attack.tfstate'), 'small')}\n${attackStack(dataDir, report, more)}`,
    },
    'a module that attacks',
  );
  await w.start();
  expect((await w.command(`check ${STACK}`, LEAD1)).status).toBe(200);
  await waitFor('the provisioner to report', () => (existsSync(report) ? true : undefined));
  return { report: await readFile(report, 'utf8'), dataDir, state, runAsDir: `${dataDir}-terraform` };
}

/** The report's block for the `driftgate serve` process. */
function serveBlock(report: string): string {
  const block = report.split('== pid ').find((b) => b.split('\n', 1)[0]!.includes(`${BIN} serve`));
  if (!block) throw new Error(`the module did not find driftgate serve among its ancestors:\n${report}`);
  return block;
}

describe.skipIf(!HAS_BUILD || !IS_ROOT)(
  `a module against the driftgate process running it (${!HAS_BUILD ? NO_BUILD_REASON : !IS_ROOT ? 'needs root to switch users: run the tests as root, as CI does' : BIN})`,
  () => {
    it('with runners.runAs, reads nothing of driftgate: not its environment, not its data dir', async () => {
      const report = await attack(true);
      expect(report).toContain(`uid ${RUN_AS.uid}`);
      expect(serveBlock(report)).toMatch(/environ of \d+: denied/);
      expect(report).toContain('secret file: denied');
      expect(report).toContain('store: denied');
      expect(report).not.toContain(GITHUB_TOKEN);
      expect(report).not.toContain(world!.env.SLACK_BOT_TOKEN);
      expect(report).not.toContain(SECRET_FILE_TEXT);
      // The apply still went through, its plan handed in and out of the run-as user's dir.
      await waitFor('the run to be applied', () =>
        world!.withStore(async (s) =>
          (await s.listRuns({ stack: STACK })).some((r) => r.state === 'applied') ? true : undefined,
        ),
      );
    });

    it('with runners.runAs, a stack from Git runs in a copy its user owns: the clone, the data dir and driftgate stay closed, state is kept', async () => {
      const { report, dataDir, state, runAsDir } = await attackFromGit();
      expect(report).toContain(`uid ${RUN_AS.uid}`);
      expect(serveBlock(report)).toMatch(/environ of \d+: denied/);
      expect(report).toContain('secret file: denied');
      expect(report).toContain('store: denied');
      expect(report).toContain('git config: denied');
      expect(report).toContain('link: denied');
      expect(report).not.toContain('[remote "origin"]');
      expect(report).not.toContain(GITHUB_TOKEN);
      expect(report).not.toContain(world!.env.SLACK_BOT_TOKEN);
      expect(report).not.toContain(SECRET_FILE_TEXT);
      // Handing the copy over gave the user the link, never the file it points to.
      expect((await lstat(join(dataDir, 'secret.txt'))).uid).toBe(0);
      // Planned and applied, each in a copy of its own; the state is in the backend, outside them.
      await waitFor('the run to be applied', () =>
        world!.withStore(async (s) =>
          (await s.listRuns({ stack: STACK })).some((r) => r.state === 'applied') ? true : undefined,
        ),
      );
      expect(await readFile(join(state, 'attack.tfstate'), 'utf8')).toContain('"terraform_data"');
      await waitFor('the copies to be removed', async () =>
        (await readdir(join(runAsDir, 'checkouts'))).length === 0 ? true : undefined,
      );
      // Each copy inited had its init stamp in the data dir: each init prunes those whose copy is gone, so
      // only the last one's is left (it goes at the next init).
      const stamps = await readdir(join(dataDir, 'init-stamps'));
      expect(stamps).toHaveLength(1);
      const [, named] = (await readFile(join(dataDir, 'init-stamps', stamps[0]!), 'utf8')).split('\n');
      expect(named!.startsWith(join(runAsDir, 'checkouts'))).toBe(true);
    });

    it('without runAs, the same module reads driftgate’s environment and its files (what runAs stops)', async () => {
      const report = await attack(false);
      expect(report).toContain('uid 0');
      expect(serveBlock(report)).toContain(`GITHUB_TOKEN=${GITHUB_TOKEN}`);
      expect(report).toContain(SECRET_FILE_TEXT);
      expect(report).toContain('store: read');
    });
  },
);

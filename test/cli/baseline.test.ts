import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { runCli } from '../helpers/cli.js';
import { configYaml, gitSource, stackEntry } from '../helpers/config-builder.js';

let repo: TestRepo | undefined;
let dir: string | undefined;
afterEach(async () => {
  await repo?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
  repo = dir = undefined;
});

async function setup() {
  repo = await makeTestRepo();
  dir = await mkdtemp(join(tmpdir(), 'driftgate-baseline-'));
  const file = join(dir, 'driftgate.yml');
  await writeFile(
    file,
    configYaml({ version: 1, dataDir: 'data', stacks: [stackEntry('prod/app', 'app')] }, gitSource(repo.url)),
  );
  const env = { PATH: process.env.PATH, HOME: dir, USER: 'grace' };
  const audit = async () => {
    const store = openSqliteStore({ path: join(dir!, 'data', 'driftgate.db') });
    try {
      return { stack: await store.getStack('prod/app'), audit: await store.listAudit({ stack: 'prod/app' }) };
    } finally {
      await store.close();
    }
  };
  return { file, env, audit };
}

describe('driftgate baseline', () => {
  it('records the branch head, or a given commit, as last applied, with an audit entry', async () => {
    const { file, env, audit } = await setup();
    const a = await repo!.commit({ 'app/main.tf': '' }, 'one');
    const b = await repo!.commit({ 'app/main.tf': '# two\n' }, 'Merge pull request #12 from x/y');

    const head = await runCli(['baseline', 'prod/app', '--config', file], { cwd: dir!, env });
    expect(head).toMatchObject({ code: 0, stderr: '' });
    expect(head.stdout).toContain(`prod/app: baseline set to ${b} (Merge pull request #12 from x/y)`);
    expect((await audit()).stack?.lastAppliedCommit).toBe(b);

    const given = await runCli(['baseline', 'prod/app', '--commit', a.slice(0, 10), '--config', file], {
      cwd: dir!,
      env,
    });
    expect(given.code).toBe(0);
    expect(given.stdout).toContain(`baseline set to ${a} (one), was ${b}`);
    const after = await audit();
    expect(after.stack?.lastAppliedCommit).toBe(a);
    expect(after.audit.filter((e) => e.action === 'baseline').map((e) => [e.actor, e.detail])).toEqual(
      expect.arrayContaining([
        ['cli:grace', { commit: b, previous: null, source: 'branch_head' }],
        ['cli:grace', { commit: a, previous: b, source: 'argument' }],
      ]),
    );
  });

  it('fails clearly for an unknown commit and for a bad argument', async () => {
    const { file, env } = await setup();
    await repo!.commit({ 'app/main.tf': '' }, 'one');
    const unknown = await runCli(['baseline', 'prod/app', '--commit', 'deadbeef00', '--config', file], {
      cwd: dir!,
      env,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('commit deadbeef00 is not on branch main');
    const bad = await runCli(['baseline', 'prod/app', '--commit', 'HEAD~1', '--config', file], { cwd: dir!, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')[0]).toBe(
      'driftgate baseline: --commit "HEAD~1" is not a commit sha: only hex digits (0-9, a-f)',
    );
    expect((await runCli(['baseline', '--config', file], { cwd: dir!, env })).stderr).toContain(
      'name exactly one stack',
    );
  });
});

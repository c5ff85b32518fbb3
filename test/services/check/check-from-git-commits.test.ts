import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../../src/adapters/github/client.js';
import { loadArtifact } from '../../../src/services/runtime/artifacts.js';
import { changeAuthors } from '../../../src/services/approval/change-authors.js';
import { checkStackFromSource } from '../../../src/services/check/check-stack-from-source.js';
import { loadCommits } from '../../../src/services/check/stored-commits.js';
import { startGitHubEmulator, type GitHubEmulator } from '../../helpers/github-emulator/index.js';
import { gitSourcesOf, makeGitStackEnv, stackHcl, type GitStackEnv } from '../../helpers/git-stack.js';

let fixture: GitStackEnv | undefined;
let github: GitHubEmulator | undefined;
afterEach(async () => {
  await github?.close();
  await fixture?.cleanup();
  fixture = github = undefined;
});

describe('a pending change from Git names its commits, with real git and terraform', () => {
  it('stores the commits since the one last applied before the event goes out; no links for a file:// origin', async () => {
    fixture = await makeGitStackEnv();
    const { repo, tf, context, env } = fixture;
    const deps = { ...context.deps, git: gitSourcesOf(fixture) };
    const stack = context.stack('prod/db')!;
    const statePath = join(tf.dir, 'state', 'db.tfstate');

    const a = await repo.commit(
      { '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath, 'small') },
      'Add db (#3)',
    );
    const work = join(repo.dir, 'work', 'db');
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: work,
      env,
      extendEnv: false,
    });
    await context.store.upsertStack(stack.name);
    await context.store.setLastAppliedCommit(stack.name, a);
    const b = await repo.commit({ 'db/main.tf': stackHcl(statePath, 'medium') }, 'Resize db (#34)');
    const c = await repo.commit({ 'db/main.tf': stackHcl(statePath, 'large') }, 'Grow db further');

    // What the notifier would see when it renders on the event.
    const seen: unknown[] = [];
    deps.bus.on('plan_pending_approval', async (e) => void seen.push(await loadCommits(deps, e.run.id)));
    const outcome = await checkStackFromSource(deps, stack, { trigger: 'schedule' });
    expect(outcome).toMatchObject({ status: 'pending_approval', run: { commitSha: c, kind: 'pending_change' } });
    const runId = outcome.status === 'pending_approval' ? outcome.run.id : '';

    const expected = [
      { sha: c, author: 'Ada Lovelace', title: 'Grow db further' },
      { sha: b, author: 'Ada Lovelace', title: 'Resize db (#34)', prNumber: 34 },
    ];
    expect(seen).toEqual([expected]);
    const stored = JSON.parse((await loadArtifact(deps, runId, 'commits'))!.toString('utf8'));
    expect(stored).toEqual({ commits: expected });

    // The same change planned again keeps its list on the new run.
    const again = await checkStackFromSource(deps, stack, { trigger: 'manual' });
    expect(again).toMatchObject({ status: 'pending_approval', isNew: false });
    expect(await loadCommits(deps, again.status === 'pending_approval' ? again.run.id : '')).toEqual(expected);

    // A stack whose URL is on GitHub (cloned here from the same file:// origin) gets commit and PR links.
    const web = 'https://github.com/acme/infra';
    const onGithub = { ...stack, git: { ...stack.git!, url: `${web}.git` } };
    const redirected = {
      checkout: (source: { url: string; branch: string }) => deps.git.checkout({ ...source, url: repo.url }),
    };
    const linked = await checkStackFromSource({ ...deps, git: redirected }, onGithub, { trigger: 'manual' });
    expect(await loadCommits(deps, linked.status === 'pending_approval' ? linked.run.id : '')).toEqual([
      { ...expected[0], commitUrl: `${web}/commit/${c}` },
      { ...expected[1], prUrl: `${web}/pull/34`, commitUrl: `${web}/commit/${b}` },
    ]);
  });
});

describe('a pending change from Git, with GitHub configured', () => {
  it('links a commit whose title names no PR to the PR GitHub merged it through, and counts that PR’s author; GitHub down costs only the links', async () => {
    fixture = await makeGitStackEnv();
    const { repo, tf, context, env } = fixture;
    const statePath = join(tf.dir, 'state', 'db.tfstate');
    const a = await repo.commit(
      { '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath, 'small') },
      'Add db',
    );
    const work = join(repo.dir, 'work', 'db');
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: work,
      env,
      extendEnv: false,
    });
    await context.store.upsertStack('prod/db');
    await context.store.setLastAppliedCommit('prod/db', a);

    // Ada's commit on a branch; Grace opens the PR on GitHub and it is merged with a merge commit.
    github = await startGitHubEmulator({
      repoDir: join(repo.dir, 'origin.git'),
      owner: 'acme',
      repo: 'infra',
      user: 'grace',
    });
    const client = createGitHubClient(
      { apiUrl: github.apiUrl, auth: { type: 'token', token: github.token } },
      { retries: 0, retryBaseMs: 1, writeSpacingMs: 0 },
    );
    const f = await repo.commitOnBranch('resize', { 'db/main.tf': stackHcl(statePath, 'medium') }, 'Resize db');
    await client.openPullRequest(
      { owner: 'acme', name: 'infra' },
      { head: 'resize', base: 'main', title: 'Resize the db', body: '', labels: [] },
    );
    const m = await github.merge(1, { method: 'merge' });

    const configured = context.stack('prod/db')!;
    const stack = { ...configured, git: { ...configured.git!, repository: 'acme/infra' } };
    const warnings: string[] = [];
    // The app's pino logger, with its warnings also kept for the test.
    const logger = Object.assign(Object.create(context.logger) as typeof context.logger, {
      warn: (_obj: object, msg: string) => void warnings.push(msg),
    });
    const deps = { ...context.deps, logger, git: gitSourcesOf(fixture), github: client };
    const outcome = await checkStackFromSource(deps, stack, { trigger: 'manual' });
    expect(outcome).toMatchObject({ status: 'pending_approval', run: { commitSha: m } });
    if (outcome.status !== 'pending_approval') throw new Error(`expected a pending change, got ${outcome.status}`);
    expect(await loadCommits(deps, outcome.run.id)).toEqual([
      { sha: m, author: 'grace', title: 'Merge pull request #1 from acme/resize', prNumber: 1 },
      {
        sha: f,
        author: 'Ada Lovelace',
        title: 'Resize db',
        prNumber: 1,
        prUrl: 'https://github.com/acme/infra/pull/1',
      },
    ]);
    const authors = await changeAuthors(
      { git: deps.git, github: client, store: context.store, stack: () => stack, logger },
      outcome.run,
    );
    expect(authors).toEqual(expect.arrayContaining(['ada@example.com', 'grace']));

    // GitHub down: the same list from git alone, a warning, and the check goes on.
    github.failNext(5, 503);
    const again = await checkStackFromSource(deps, stack, { trigger: 'manual' });
    expect(again).toMatchObject({ status: 'pending_approval' });
    expect(
      (await loadCommits(deps, again.status === 'pending_approval' ? again.run.id : ''))?.map((c) => c.prUrl),
    ).toEqual([undefined, undefined]);
    expect(warnings).toContain('looking up the pull request of a commit failed');
  });
});

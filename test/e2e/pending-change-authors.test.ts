/**
 * A change merged through a PR on GitHub (rebased: no `(#N)` in any title, the commits in another
 * person's name) waits in Slack with the PR's link, and the PR's author cannot approve it.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, it } from 'vitest';
import { createGitHubClient } from '../../src/adapters/github/client.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { approvers, gitSource, stackEntry } from '../helpers/config-builder.js';
import { stackHcl } from '../helpers/git-stack.js';
import { startGitHubEmulator, type GitHubEmulator } from '../helpers/github-emulator/index.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { alerts, LEAD1, LEAD2, textOf } from './fixtures.js';

const STACK = 'prod/db';
const startServe = useSlackServe();
let repo: TestRepo | undefined;
let github: GitHubEmulator | undefined;
afterEach(async () => {
  await github?.close();
  await repo?.cleanup();
  repo = github = undefined;
});

it('links the rebased commit to its PR, refuses the PR author (and everyone while GitHub fails), and keeps only complete answers', async () => {
  repo = await makeTestRepo();
  const statePath = join(repo.dir, 'state', 'db.tfstate');
  const a = await repo.commit({ '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath, 'small') }, 'Add db');
  github = await startGitHubEmulator({
    repoDir: join(repo.dir, 'origin.git'),
    owner: 'acme',
    repo: 'infra',
    user: 'grace',
  });
  const h = await startServe({
    stacks: {},
    config: {
      stacks: [stackEntry(STACK, 'db')],
      ...gitSource(repo.url, { repository: 'acme/infra' }),
      ...approvers({ dba: [LEAD1, LEAD2] }, [{ stacks: '*', count: 1, from: ['dba'] }], { authors: { grace: LEAD1 } }),
    },
    env: { GITHUB_TOKEN: github.token, GITHUB_API_URL: github.apiUrl },
    github: { retries: 0, retryBaseMs: 1, rateLimitSecondMs: 1, writeSpacingMs: 0 },
  });
  const work = join(repo.dir, 'work', 'db');
  await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env: h.env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
    cwd: work,
    env: h.env,
    extendEnv: false,
  });
  expect(await h.running.scheduler.request(STACK)).toMatchObject({ status: 'no_changes', run: { commitSha: a } });

  // Ada's commit; Grace opened the PR, which was rebased onto main.
  const resize = await repo.commitOnBranch('resize', { 'db/main.tf': stackHcl(statePath, 'medium') }, 'Resize db');
  const client = createGitHubClient(
    { apiUrl: github.apiUrl, auth: { type: 'token', token: github.token } },
    { retries: 0, writeSpacingMs: 0 },
  );
  await client.openPullRequest(
    { owner: 'acme', name: 'infra' },
    { head: 'resize', base: 'main', title: 'Resize the db', body: '', labels: [] },
  );
  expect(await github.merge(1, { method: 'rebase' })).toBe(resize);

  const outcome = await h.running.scheduler.request(STACK);
  expect(outcome).toMatchObject({ status: 'pending_approval', run: { commitSha: resize, kind: 'pending_change' } });
  const runId = outcome.status === 'pending_approval' ? outcome.run.id : '';
  await h.settle();
  const [alert] = alerts(h, CHANNEL);
  expect(textOf(alert)).toContain('Resize db');
  expect(textOf(alert)).toContain('<https://github.com/acme/infra/pull/1|#1>');
  const lookups = () =>
    github!.calls('GET').filter((c) => c.path === `/repos/acme/infra/commits/${resize}/pulls`).length;
  expect(lookups()).toBe(1);

  // GitHub fails while Grace clicks: who opened the PR cannot be told, so nobody approves, and the
  // incomplete answer is not kept for the next click.
  github.failNext(1, 502);
  await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'down', message: { channel: alert!.channel, ts: alert!.ts } });
  await h.settle();
  expect(JSON.stringify(h.emulator.responses('down'))).toContain(
    'GitHub did not answer who opened the pull requests of this change',
  );
  expect(JSON.stringify(h.emulator.responses('down'))).toContain('try again in a minute');
  expect((await h.running.context.store.getRun(runId))?.state).toBe('pending_approval');

  // Grace (LEAD1) opened the PR: not hers to approve, though Ada wrote the commit.
  await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'grace', message: { channel: alert!.channel, ts: alert!.ts } });
  await h.settle();
  expect(JSON.stringify(h.emulator.responses('grace'))).toContain(
    'You authored this change, so you cannot approve it yourself',
  );
  expect((await h.running.context.store.getRun(runId))?.state).toBe('pending_approval');

  await h.click(ACTION_IDS.approve, runId, LEAD2, { id: 'other', message: { channel: alert!.channel, ts: alert!.ts } });
  await h.idle();
  expect((await h.running.context.store.getRun(runId))?.state).toBe('applied');
  // The check and Grace's clicks asked GitHub (the failed answer was not kept); LEAD2's click used what
  // Grace's second click learned.
  expect(lookups()).toBe(3);
});

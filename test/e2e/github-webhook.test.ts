import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import type { Run } from '../../src/domain/run/model.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { gitSource, stackEntry } from '../helpers/config-builder.js';
import { stackHcl } from '../helpers/git-stack.js';
import { deliverWebhook, mergedPullRequest } from '../helpers/github-webhook.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { alerts, textOf } from './fixtures.js';

const SECRET = 'webhook-secret-that-must-never-be-logged';
const STACK = 'prod/db';
const startServe = useSlackServe();

let repo: TestRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

/** POSTs a delivery as GitHub does: JSON, signed with the secret (or `signature`), with its event headers. */
const deliver = (h: SlackServe, event: string | undefined, body: string, signature?: string) =>
  deliverWebhook(h.base, SECRET, event, body, signature);

const push = (repository: string, ref: string) =>
  JSON.stringify({ ref, repository: { full_name: repository }, commits: [] });
const merged = (repository: string, base: string) => mergedPullRequest(repository, base);

const webhookRuns = async (h: SlackServe): Promise<Run[]> =>
  (await h.running.context.store.listRuns({ stack: STACK })).filter((r) => r.trigger === 'webhook');

async function finishedWebhookRuns(h: SlackServe, count: number): Promise<Run[]> {
  for (let i = 0; i < 600; i++) {
    const runs = await webhookRuns(h);
    if (runs.length >= count && runs.every((r) => r.state !== 'planning')) return runs;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${count} finished webhook runs of ${STACK}`);
}

describe('the GitHub webhook of driftgate serve, with real git, terraform and the Slack emulator', () => {
  it('re-checks the stacks of a merged branch: codified drift is resolved in Slack and later drift is drift again', async () => {
    repo = await makeTestRepo();
    const statePath = join(repo.dir, 'state', 'db.tfstate');
    const a = await repo.commit(
      { '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath, 'small') },
      'Add db (#3)',
    );
    const h = await startServe({
      stacks: {},
      config: { stacks: [stackEntry(STACK, 'db')], ...gitSource(repo.url, { repository: 'acme/infra' }) },
      env: { GITHUB_WEBHOOK_SECRET: SECRET },
    });
    const work = join(repo.dir, 'work', 'db');
    const terraform = { binary: 'terraform', env: h.env };
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env: h.env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: work,
      env: h.env,
      extendEnv: false,
    });

    expect(await h.running.scheduler.request(STACK)).toMatchObject({ status: 'no_changes', run: { commitSha: a } });
    await editResourceInput(terraform, work, { type: 'terraform_data', name: 'db' }, (input) => {
      input.size = 'huge';
    });
    expect(await h.running.scheduler.request(STACK)).toMatchObject({
      status: 'drifted',
      run: { commitSha: a, kind: 'drift' },
    });
    await h.settle();
    const [alert] = alerts(h, CHANNEL);
    expect(textOf(alert)).toContain(STACK);

    // Nothing happens for what is not a signed move of the stack's branch.
    const idle = { running: [], queued: [] };
    expect(await deliver(h, 'push', push('acme/infra', 'refs/heads/main'), 'sha256=0000')).toMatchObject({
      status: 401,
    });
    expect(h.running.scheduler.status()).toEqual(idle);
    expect(await deliver(h, 'push', push('acme/infra', 'refs/heads/main'), '')).toMatchObject({ status: 401 });
    expect(await deliver(h, undefined, push('acme/infra', 'refs/heads/main'))).toMatchObject({
      status: 400,
      body: { error: 'missing header X-GitHub-Event' },
    });
    expect(await deliver(h, 'push', '{"ref": "refs/heads/main", ')).toMatchObject({
      status: 400,
      body: { error: 'body is not JSON' },
    });
    expect(await deliver(h, 'ping', JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }))).toMatchObject({
      status: 200,
    });
    const otherRepo = await deliver(h, 'push', push('acme/other', 'refs/heads/main'));
    expect(otherRepo.status).toBe(202);
    expect(await deliver(h, 'push', push('acme/infra', 'refs/heads/dev'))).toMatchObject({ status: 202 });
    expect(
      await deliver(
        h,
        'pull_request',
        JSON.stringify({
          action: 'closed',
          pull_request: { merged: false, base: { ref: 'main' } },
          repository: { full_name: 'acme/infra' },
        }),
      ),
    ).toMatchObject({ status: 202 });
    expect(await deliver(h, 'issues', JSON.stringify({ action: 'opened' }))).toMatchObject({ status: 202 });
    expect(h.running.scheduler.status()).toEqual(idle);
    expect(h.logs.some((l) => l.includes(otherRepo.id) && l.includes('no stack comes from that branch'))).toBe(true);
    expect((await fetch(`${h.base}/github/webhook`)).status).toBe(405);

    // The remediation PR writes the real value into the code and is merged.
    const b = await repo.commit({ 'db/main.tf': stackHcl(statePath, 'huge') }, 'Codify db size (#7)');
    expect(await deliver(h, 'pull_request', merged('acme/infra', 'main'))).toMatchObject({
      status: 202,
      body: { accepted: true },
    });
    const [resolved] = await finishedWebhookRuns(h, 1);
    expect(resolved).toMatchObject({ state: 'no_changes', commitSha: b });
    await h.idle();
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain('Drift resolved');
    expect((await h.running.context.store.getStack(STACK))?.lastAppliedCommit).toBe(b);

    // A push to the branch (GitHub's names are case-insensitive) checks again; new drift at B is drift.
    await editResourceInput(terraform, work, { type: 'terraform_data', name: 'db' }, (input) => {
      input.size = 'tiny';
    });
    expect(await deliver(h, 'push', push('ACME/Infra', 'refs/heads/main'))).toMatchObject({ status: 202 });
    const [again] = await finishedWebhookRuns(h, 2);
    expect(again).toMatchObject({ state: 'drifted', kind: 'drift', commitSha: b });
    expect(await webhookRuns(h)).toHaveLength(2);
    expect(h.logs.join('')).not.toContain(SECRET);
  });
});

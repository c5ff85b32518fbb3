/**
 * The whole remediation loop on real drift: aws_s3_objects (the AWS provider from the offline mirror)
 * on the local S3 server, changed out of band with the S3 client; the alert in Slack, one signed click,
 * the PR on the GitHub emulator; the PR's branch checked out and planned with real terraform; then the
 * merge, GitHub's signed webhook, and the alert saying the drift is resolved.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { Run } from '../../src/domain/run/model.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { approvers, gitSource, stackEntry } from '../helpers/config-builder.js';
import { startGitHubEmulator, type GitHubEmulator } from '../helpers/github-emulator/index.js';
import { deliverWebhook, mergedPullRequest } from '../helpers/github-webhook.js';
import {
  changeOutOfBand,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  tagAsCreated,
  type S3ObjectSpec,
} from '../helpers/s3-object-stack.js';
import { startLocalS3, type LocalS3 } from '../helpers/s3rver.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { HAS_AWS_MIRROR } from '../helpers/terraform-env.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { actionIds, alerts, LEAD1, textOf } from './fixtures.js';

const STACK = 'prod/site';
const BUCKET = 'site';
const SECRET = 'webhook-secret-of-the-s3-loop';
const OBJECTS: S3ObjectSpec[] = [
  {
    name: 'index',
    key: 'index.html',
    content: '<h1>hi</h1>',
    contentType: 'text/plain',
    metadata: { owner: 'web', stage: 'draft' },
    tags: { Name: 'index' },
  },
  { name: 'robots', key: 'robots.txt', content: 'User-agent: *', contentType: 'text/plain' },
];

const startServe = useSlackServe();
let repo: TestRepo | undefined;
let github: GitHubEmulator | undefined;
let s3: LocalS3 | undefined;
let client: S3Client | undefined;
let scratch: string | undefined;
afterEach(async () => {
  client?.destroy();
  await s3?.close();
  await github?.close();
  await repo?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  repo = github = s3 = client = scratch = undefined;
});

describe.skipIf(!HAS_AWS_MIRROR)('remediating real S3 drift from Slack to a merged PR', () => {
  it('one click opens a PR whose branch plans clean, whose body lists what was left, and whose merge resolves the drift', async () => {
    repo = await makeTestRepo();
    s3 = await startLocalS3([BUCKET]);
    client = s3TestClient(s3);
    const statePath = join(repo.dir, 'state', 'site.tfstate');
    const hcl = s3ObjectStackHcl({ bucket: BUCKET, objects: OBJECTS, statePath });
    const planned = await repo.commit(
      { '.gitignore': '.terraform/\n.terraform.lock.hcl\n', 'site/main.tf': hcl },
      'Add the site objects (#12)',
    );
    const origin = join(repo.dir, 'origin.git');
    github = await startGitHubEmulator({ repoDir: origin, owner: 'acme', repo: 'infra' });
    const settings = s3StackSettings(s3);
    const h = await startServe({
      stacks: {},
      config: {
        stacks: [stackEntry(STACK, 'site', settings)],
        ...gitSource(repo.url, { repository: 'acme/infra' }),
        github: { labels: ['drift'], draft: true },
        ...approvers({ web: [LEAD1] }, [{ stacks: '*', count: 1, from: ['web'] }]),
      },
      env: { GITHUB_TOKEN: github.token, GITHUB_API_URL: github.apiUrl, GITHUB_WEBHOOK_SECRET: SECRET },
      github: { retries: 1, retryBaseMs: 1, rateLimitSecondMs: 1, writeSpacingMs: 0 },
    });
    const tfEnv = { ...h.env, ...settings.env, TF_VAR_s3_endpoint: s3.endpoint };
    const inWork = { cwd: join(repo.dir, 'work', 'site'), env: tfEnv, extendEnv: false };
    await execa('terraform', ['init', '-input=false', '-no-color'], inWork);
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], inWork);
    await tagAsCreated(client, BUCKET, OBJECTS);
    expect(await h.running.scheduler.request(STACK)).toMatchObject({
      status: 'no_changes',
      run: { commitSha: planned },
    });

    // Someone in the console: a new content type and metadata, and a tag.
    await changeOutOfBand(client, BUCKET, 'index.html', {
      contentType: 'text/html',
      metadata: { owner: 'web-team', stage: 'draft', cdn: 'on' },
      tags: { Name: 'index-v2' },
    });
    await changeOutOfBand(client, BUCKET, 'robots.txt', { contentType: 'text/x-robots' });
    const outcome = await h.running.scheduler.request(STACK);
    expect(outcome).toMatchObject({ status: 'drifted', run: { kind: 'drift', commitSha: planned } });
    const run = (outcome as { run: Run }).run;
    await h.settle();
    const [alert] = alerts(h, CHANNEL);
    expect(actionIds(alert)).toContain('driftgate.remediate');

    await h.click('driftgate.remediate', run.id, LEAD1, { message: { channel: alert!.channel, ts: alert!.ts } });
    await h.settle();
    const [pr, ...more] = github.pulls();
    expect(more).toEqual([]);
    const branch = `driftgate/prod/site/${run.fingerprint!.slice(0, 12)}`;
    expect(pr).toMatchObject({
      head: branch,
      base: 'main',
      draft: true,
      labels: ['drift'],
      title: 'Accept drift in prod/site: 5 attributes in 2 resources',
    });
    const body = pr!.body!;
    for (const line of [
      '`aws_s3_object.index` `content_type` in `site/main.tf`: `"text/plain"` → `"text/html"`',
      '`aws_s3_object.index` `metadata.owner` in `site/main.tf`: `"web"` → `"web-team"`',
      '`aws_s3_object.index` `metadata.cdn` in `site/main.tf`: `(not set)` → `"on"`',
      '`aws_s3_object.index` `tags.Name` in `site/main.tf`: `"index"` → `"index-v2"`',
      '`aws_s3_object.robots` `content_type` in `site/main.tf`: `"text/plain"` → `"text/x-robots"`',
    ]) {
      expect(body).toContain(line);
    }
    // Exactly what was left for a person: tags_all, which the provider derives from tags.
    const left = body.slice(body.indexOf('### Left for a person'), body.indexOf('After merging'));
    expect(left).toMatch(/^### Left for a person \(1\)\n/);
    expect(left.match(/^- /gm)).toHaveLength(1);
    expect(left).toContain('`aws_s3_object.index` `tags_all`');
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain('https://github.com/acme/infra/pull/1');

    // The PR's branch, checked out and planned against the same state and server: nothing left to change.
    scratch = await mkdtemp(join(tmpdir(), 'driftgate-s3-branch-'));
    await execa('git', ['clone', '--quiet', '--branch', branch, repo.url, scratch]);
    const inBranch = { ...inWork, cwd: join(scratch, 'site') };
    await execa('terraform', ['init', '-input=false', '-no-color'], inBranch);
    const plan = await execa('terraform', ['plan', '-input=false', '-no-color', '-detailed-exitcode', '-lock=false'], {
      ...inBranch,
      reject: false,
    });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.exitCode).toBe(0);

    // Merged on GitHub; GitHub tells driftgate, which checks again at the merge and resolves the alert.
    const merge = await github.merge(1, { method: 'merge' });
    const delivery = await deliverWebhook(
      h.base,
      SECRET,
      'pull_request',
      mergedPullRequest('acme/infra', 'main', 1, branch),
    );
    expect(delivery).toMatchObject({ status: 202, body: { accepted: true } });
    let resolved: Run | undefined;
    for (let i = 0; i < 2400 && !resolved; i++) {
      resolved = (await h.running.context.store.listRuns({ stack: STACK })).find(
        (r) => r.trigger === 'webhook' && r.state !== 'planning',
      );
      if (!resolved) await new Promise((r) => setTimeout(r, 25));
    }
    expect(resolved).toMatchObject({ state: 'no_changes', commitSha: merge });
    await h.idle();
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain('Drift resolved');
    expect((await h.running.context.store.getStack(STACK))?.lastAppliedCommit).toBe(merge);
    expect(h.logs.join('\n')).not.toContain(settings.env.AWS_SECRET_ACCESS_KEY);
  }, 300_000);
});

/**
 * openRemediationPr against real git, real terraform and the GitHub emulator: the cases a Slack click
 * rarely reaches (a crash between opening and recording a PR, a PR turned down, a bad token, a file that
 * was never fmt-clean).
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../src/adapters/github/client.js';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { createRedactor } from '../../src/domain/plan/redact.js';
import type { Stack } from '../../src/domain/stack.js';
import type { Run } from '../../src/domain/run/model.js';
import { checkStackFromSource } from '../../src/services/check-stack-from-source.js';
import { openRemediationPr, type RemediationDeps } from '../../src/services/open-remediation-pr.js';
import { terraformCodeChecks } from '../../src/services/remediation-code-checks.js';
import { startGitHubEmulator, type GitHubEmulator } from '../helpers/github-emulator/index.js';
import { gitSourcesOf, makeGitStackEnv, type GitStackEnv } from '../helpers/git-stack.js';

// Not what `terraform fmt` writes (the `=` are not aligned, a blank line too many), and plans fine.
const messyHcl = (statePath: string) => `terraform {
  backend "local" { path = ${JSON.stringify(statePath)} }
}


resource "terraform_data" "db" {
  input = {
    size = "small"
    tier   =   "gold"
  }
}
`;

let fixture: GitStackEnv | undefined;
let github: GitHubEmulator | undefined;
afterEach(async () => {
  await github?.close();
  await fixture?.cleanup();
  fixture = github = undefined;
});

const fast = { retries: 0, retryBaseMs: 1, rateLimitSecondMs: 1, writeSpacingMs: 0 };
const request = { actor: 'U0ADA', requestedBy: '@ada in Slack' };

/** prod/db from Git at a first commit of `hcl`, applied for real, with the GitHub emulator serving the repo. */
async function appliedGitStack(hcl: (statePath: string) => string) {
  fixture = await makeGitStackEnv();
  const { repo, tf, context, env } = fixture;
  const original = hcl(join(tf.dir, 'state', 'db.tfstate'));
  const commit = await repo.commit({ '.gitignore': '.terraform/\n', 'db/main.tf': original }, 'Add db');
  github = await startGitHubEmulator({ repoDir: join(repo.dir, 'origin.git'), owner: 'acme', repo: 'infra' });
  const git = gitSourcesOf(fixture);
  const configured = context.stack('prod/db')!;
  const stack: Stack = { ...configured, git: { ...configured.git!, repository: 'acme/infra' } };
  const work = join(repo.dir, 'work', 'db');
  await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
    cwd: work,
    env,
    extendEnv: false,
  });
  const client = createGitHubClient({ apiUrl: github.apiUrl, auth: { type: 'token', token: github.token } }, fast);
  const remediation: RemediationDeps = {
    store: context.store,
    artifacts: context.deps.artifacts,
    logger: context.logger,
    now: context.deps.now,
    secrets: context.deps.secrets,
    git,
    github: client,
    checks: terraformCodeChecks(context.deps.terraform, context.logger),
    settings: { labels: [], draft: false },
  };
  return {
    repo,
    context,
    env,
    original,
    commit,
    git,
    deps: { ...context.deps, git },
    stack,
    work,
    client,
    remediation,
    github,
  };
}

describe('openRemediationPr', () => {
  it('does not reformat a file that was never fmt-clean, adopts a PR it opened before a crash, opens a new one after a PR was turned down, and explains a bad token', async () => {
    const { repo, context, env, original, commit, deps, stack, work, client, remediation, github } =
      await appliedGitStack(messyHcl);
    expect(await checkStackFromSource(deps, stack, { trigger: 'manual' })).toMatchObject({ status: 'no_changes' });
    await editResourceInput({ binary: 'terraform', env }, work, { type: 'terraform_data', name: 'db' }, (input) => {
      input.size = 'huge';
    });
    const outcome = await checkStackFromSource(deps, stack, { trigger: 'manual' });
    expect(outcome).toMatchObject({ status: 'drifted' });
    const run = (outcome as { run: Run }).run;

    // A bad token: GitHub's answer and what to do about it, nothing recorded.
    const badToken = {
      ...remediation,
      github: createGitHubClient({ apiUrl: github.apiUrl, auth: { type: 'token', token: 'ghp_wrong' } }, fast),
    };
    const refused = await openRemediationPr(badToken, stack, run, request).then(
      () => new Error('expected a refusal'),
      (e: unknown) => e as Error,
    );
    expect(refused.message).toMatch(/401/);
    expect(refused.message).toMatch(/GITHUB_TOKEN/);
    expect(refused.message).not.toContain('ghp_wrong');
    expect(await context.store.getRemediation(stack.name, run.fingerprint!)).toBeUndefined();

    // A first attempt opened the PR and died before recording it: the next one adopts it.
    const branch = `driftgate/prod/db/${run.fingerprint!.slice(0, 12)}`;
    await client.commitToBranch(
      { owner: 'acme', name: 'infra' },
      {
        branch,
        parentSha: commit,
        files: [{ path: 'db/main.tf', content: original.replace('"small"', '"huge"') }],
        message: 'Accept drift',
      },
    );
    const first = await client.openPullRequest(
      { owner: 'acme', name: 'infra' },
      { head: branch, base: 'main', title: 'Accept drift in prod/db', body: 'b', labels: [] },
    );
    const adopted = await openRemediationPr(remediation, stack, run, request);
    expect(adopted).toMatchObject({
      status: 'existing',
      record: { prNumber: first.number, branch, requestedBy: 'U0ADA' },
    });
    expect(await context.store.getRemediation(stack.name, run.fingerprint!)).toMatchObject({ prNumber: first.number });
    expect(github.pulls()).toHaveLength(1);

    // Turned down: closed unmerged. Asking again opens a new PR on the same branch, moved to a new commit.
    github.closeUnmerged(first.number);
    const reopened = await openRemediationPr(remediation, stack, run, request);
    expect(reopened).toMatchObject({
      status: 'opened',
      record: { prNumber: 2, branch, codified: 1, leftForPerson: 0 },
    });
    expect(await context.store.getRemediation(stack.name, run.fingerprint!)).toMatchObject({ prNumber: 2 });
    expect(github.pulls().map((p) => [p.number, p.state])).toEqual([
      [1, 'closed'],
      [2, 'open'],
    ]);

    // The file was never fmt-clean, and is not reformatted: the edited run of `=` is aligned as fmt
    // would, the rest of the layout (the extra blank line) stays as it was.
    const onBranch = await execa('git', ['--git-dir', join(repo.dir, 'origin.git'), 'show', `${branch}:db/main.tf`], {
      stripFinalNewline: false,
    });
    expect(onBranch.stdout).toBe(
      original.replace('size = "small"', 'size = "huge"').replace('tier   =   "gold"', 'tier =   "gold"'),
    );
    expect(onBranch.stdout).toContain('}\n\n\nresource');
    expect(
      (await context.store.listAudit({ runId: run.id })).filter((a) => a.action === 'remediation_opened'),
    ).toHaveLength(1);
  });

  it('keeps a value the stack knows as secret out of the code and the PR, though the plan does not mark it', async () => {
    // Failed before: only the plan's own secrets were masked, so a config secret drifted into an attribute
    // was written into the HCL and the PR body.
    const { context, env, git, stack, work, remediation, github } = await appliedGitStack(messyHcl);
    const secret = 'tok-Config-Secret-9913-abc';
    // What the config (a var, a varFile, an ${ENV} value) registers for the stack at start.
    context.deps.secrets.add(stack.name, createRedactor([secret]));
    await editResourceInput({ binary: 'terraform', env }, work, { type: 'terraform_data', name: 'db' }, (input) => {
      input.size = secret;
    });
    const outcome = await checkStackFromSource({ ...context.deps, git }, stack, { trigger: 'manual' });
    const run = (outcome as { run: Run }).run;
    const result = await openRemediationPr(remediation, stack, run, request);
    expect(result.status).toBe('nothing_to_codify');
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(JSON.stringify(github.pulls())).not.toContain(secret);
  });
});

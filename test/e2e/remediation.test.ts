/**
 * "Open remediation PR" through `driftgate serve` for real: a terraform_data stack in a real git repo,
 * drift made by editing its state, signed Slack clicks, and the GitHub REST emulator over the same repo.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import type { Run } from '../../src/domain/run/model.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { approvers, gitSource, stackEntry } from '../helpers/config-builder.js';
import { startGitHubEmulator, type GitHubEmulator } from '../helpers/github-emulator/index.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { actionIds, alerts, LEAD1, LEAD2, OUTSIDER, textOf } from './fixtures.js';

const STACK = 'prod/db';
const PASSWORD = 'initial-db-password-7f3a';
const ROTATED = 'rotated-by-hand-password-91c2';
const DB_ENTRY = stackEntry(STACK, 'db', { vars: { password: PASSWORD } });

const stackHcl = (statePath: string) => `terraform {
  backend "local" { path = ${JSON.stringify(statePath)} }
}

variable "password" {
  type      = string
  sensitive = true
}

# The database; its size is edited by hand sometimes.
resource "terraform_data" "db" {
  input = {
    size = "small" # the default
    tier = "gold"
  }
}

resource "terraform_data" "login" {
  input = var.password
}
`;

const startServe = useSlackServe();
let repo: TestRepo | undefined;
let github: GitHubEmulator | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await github?.close();
  await repo?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  github = repo = scratch = undefined;
});

interface World {
  h: SlackServe;
  repo: TestRepo;
  github: GitHubEmulator;
  origin: string;
  work: string;
  commit: string;
  tfEnv: Record<string, string | undefined>;
}

async function world(): Promise<World> {
  repo = await makeTestRepo();
  const statePath = join(repo.dir, 'state', 'db.tfstate');
  const commit = await repo.commit({ '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath) }, 'Add db (#3)');
  const origin = join(repo.dir, 'origin.git');
  github = await startGitHubEmulator({ repoDir: origin, owner: 'acme', repo: 'infra' });
  const h = await startServe({
    stacks: {},
    config: {
      stacks: [DB_ENTRY],
      ...gitSource(repo.url, { repository: 'acme/infra' }),
      github: { labels: ['driftgate', 'drift'] },
      ...approvers({ dba: [LEAD1, LEAD2] }, [{ stacks: '*', count: 1, from: ['dba'] }]),
    },
    env: { GITHUB_TOKEN: github.token, GITHUB_API_URL: github.apiUrl },
    github: { retries: 1, retryBaseMs: 1, rateLimitSecondMs: 1, writeSpacingMs: 0 },
  });
  const work = join(repo.dir, 'work', 'db');
  const tfEnv = { ...h.env, TF_VAR_password: PASSWORD };
  await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env: tfEnv, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
    cwd: work,
    env: tfEnv,
    extendEnv: false,
  });
  return { h, repo, github, origin, work, commit, tfEnv };
}

/** Changes `terraform_data.<name>`'s string input (and the output that mirrors it) in the state, keeping its sensitivity marks. */
async function editStringInput(w: World, name: string, value: string): Promise<void> {
  const env = { env: w.tfEnv, extendEnv: false, cwd: w.work };
  const state = JSON.parse((await execa('terraform', ['state', 'pull'], env)).stdout) as {
    serial: number;
    resources: { name: string; instances: { attributes: Record<string, unknown> }[] }[];
  };
  const attributes = state.resources.find((r) => r.name === name)!.instances[0]!.attributes;
  attributes.input = { value, type: 'string' };
  attributes.output = { value, type: 'string' };
  state.serial += 1;
  await execa('terraform', ['state', 'push', '-'], { ...env, input: JSON.stringify(state) });
}

async function drift(w: World): Promise<Run> {
  expect(await w.h.running.scheduler.request(STACK)).toMatchObject({
    status: 'no_changes',
    run: { commitSha: w.commit },
  });
  await editResourceInput(
    { binary: 'terraform', env: w.tfEnv },
    w.work,
    { type: 'terraform_data', name: 'db' },
    (input) => {
      input.size = 'huge';
    },
  );
  await editStringInput(w, 'login', ROTATED);
  const outcome = await w.h.running.scheduler.request(STACK);
  expect(outcome).toMatchObject({ status: 'drifted', run: { kind: 'drift', commitSha: w.commit } });
  await w.h.settle();
  return (outcome as { run: Run }).run;
}

const git = (w: World, args: string[]) =>
  execa('git', ['--git-dir', w.origin, ...args], { stripFinalNewline: false }).then((r) => r.stdout);
const writes = (g: GitHubEmulator) => g.calls().filter((c) => c.method !== 'GET');

describe('remediation PRs from Slack, through driftgate serve and the GitHub emulator', () => {
  it('opens one PR that codifies the literal drift, lists the rest, links it in Slack, and never writes a secret', async () => {
    const w = await world();
    const run = await drift(w);
    const [alert] = alerts(w.h, CHANNEL);
    expect(actionIds(alert)).toContain('driftgate.remediate');
    const at = { message: { channel: alert!.channel, ts: alert!.ts } };

    // Not an approver of the stack: refused before anything reaches GitHub.
    expect((await w.h.click('driftgate.remediate', run.id, OUTSIDER, { ...at, id: 'outsider' })).status).toBe(200);
    await w.h.settle();
    expect(textOf(w.h.emulator.responses('outsider').at(-1)?.body as never)).toContain(
      'Opening a remediation PR for prod/db takes someone who may approve its plans. Only members of dba',
    );
    expect(w.github.calls()).toEqual([]);

    // GitHub down: a clear error, nothing recorded, no branch.
    w.github.failNext(2, 502);
    await w.h.click('driftgate.remediate', run.id, LEAD1, { ...at, id: 'down' });
    await w.h.settle();
    const down = textOf(w.h.emulator.responses('down').at(-1)?.body as never);
    expect(down).toContain(`No remediation PR for ${STACK}`);
    expect(down).toMatch(/GitHub/);
    expect(down).toMatch(/502|unavailable|server error/i);
    expect(await w.h.running.context.store.getRemediation(STACK, run.fingerprint!)).toBeUndefined();
    expect(writes(w.github)).toEqual([]);
    expect((await w.h.running.context.store.listAudit({ runId: run.id })).map((a) => a.action)).toContain(
      'remediation_failed',
    );

    // An approver: the PR.
    await w.h.click('driftgate.remediate', run.id, LEAD1, { ...at, id: 'open' });
    await w.h.settle();
    const [pr, ...others] = w.github.pulls();
    expect(others).toEqual([]);
    const branch = `driftgate/prod/db/${run.fingerprint!.slice(0, 12)}`;
    expect(pr).toMatchObject({
      number: 1,
      title: 'Accept drift in prod/db: 1 attribute in 1 resource',
      head: branch,
      base: 'main',
      draft: false,
      labels: ['driftgate', 'drift'],
      state: 'open',
    });
    expect(pr!.body).toContain('terraform_data.db');
    expect(pr!.body).toContain('`terraform_data.db` `input.size` in `db/main.tf`: `"small"` → `"huge"`');
    expect(pr!.body).toMatch(/terraform_data\.login[^\n]*input/);
    expect(pr!.body).toContain(`/archives/${CHANNEL}/p${alert!.ts.replace('.', '')}`);
    expect(pr!.body).toMatch(/Asked for by @\u200bu0lead1 in Slack/); // the mention defused

    // The branch: one commit on top of the planned one, the literal rewritten and everything else as it was.
    expect((await git(w, ['rev-parse', `${branch}^`])).trim()).toBe(w.commit);
    const text = await git(w, ['show', `${branch}:db/main.tf`]);
    expect(text).toBe(
      stackHcl(join(w.repo.dir, 'state', 'db.tfstate')).replace(
        'size = "small" # the default',
        'size = "huge" # the default',
      ),
    );
    expect((await git(w, ['diff', '--stat', w.commit, branch])).trim()).toMatch(/^db\/main.tf \| 2 \+-/);

    // Slack: the thread says who asked, and the alert links the PR.
    const thread = w.h.emulator.messages(CHANNEL).filter((m) => m.threadTs === alert!.ts);
    expect(
      thread
        .map(textOf)
        .some(
          (t) => t.includes(`<@${LEAD1}> opened remediation PR`) && t.includes('https://github.com/acme/infra/pull/1'),
        ),
    ).toBe(true);
    expect(textOf(w.h.emulator.message(alert!.channel, alert!.ts))).toContain('https://github.com/acme/infra/pull/1');
    expect(await w.h.running.context.store.getRemediation(STACK, run.fingerprint!)).toMatchObject({
      prNumber: 1,
      branch,
      requestedBy: LEAD1,
      codified: 1,
      leftForPerson: 1,
    });
    const audit = await w.h.running.context.store.listAudit({ runId: run.id });
    expect(audit.find((a) => a.action === 'remediation_opened')).toMatchObject({
      actor: LEAD1,
      detail: { pr: 1, branch, codified: 1, leftForPerson: 1 },
    });

    // The same drift again: the PR already open is linked, no second branch or PR.
    const writesBefore = writes(w.github).length;
    await w.h.click('driftgate.remediate', run.id, LEAD2, { ...at, id: 'again' });
    await w.h.settle();
    expect(w.github.pulls()).toHaveLength(1);
    expect(writes(w.github)).toHaveLength(writesBefore);
    expect(
      w.h.emulator
        .messages(CHANNEL)
        .filter((m) => m.threadTs === alert!.ts)
        .map(textOf)
        .some((t) => t.includes(`<@${LEAD2}> asked for a remediation PR`) && t.includes('already open')),
    ).toBe(true);

    // The branch planned with real terraform: the codified drift is gone, the sensitive one is left.
    scratch = await mkdtemp(join(tmpdir(), 'driftgate-remediation-branch-'));
    await execa('git', ['clone', '--quiet', '--branch', branch, w.repo.url, scratch]);
    const cwd = join(scratch, 'db');
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd, env: w.tfEnv, extendEnv: false });
    const plan = await execa('terraform', ['plan', '-input=false', '-no-color', '-detailed-exitcode'], {
      cwd,
      env: w.tfEnv,
      extendEnv: false,
      reject: false,
    });
    expect(plan.exitCode).toBe(2);
    expect(plan.stdout).not.toContain('terraform_data.db ');
    expect(plan.stdout).toContain('terraform_data.login will be updated in-place');

    // Merged on GitHub before driftgate noticed: a click (an old message) says so and checks at once.
    const merge = await w.github.merge(1, { method: 'squash' });
    const earlier = new Set((await w.h.running.context.store.listRuns({ stack: STACK })).map((r) => r.id));
    await w.h.click('driftgate.remediate', run.id, LEAD1, { ...at, id: 'merged' });
    await w.h.settle();
    expect(w.github.pulls()).toHaveLength(1);
    expect(
      w.h.emulator
        .messages(CHANNEL)
        .filter((m) => m.threadTs === alert!.ts)
        .map(textOf)
        .some((t) => t.includes('is merged already') && t.includes('checks prod/db again now')),
    ).toBe(true);
    let check: Run | undefined;
    for (let i = 0; i < 400 && !check; i++) {
      check = (await w.h.running.context.store.listRuns({ stack: STACK })).find(
        (r) => !earlier.has(r.id) && r.state !== 'planning',
      );
      if (!check) await new Promise((r) => setTimeout(r, 25));
    }
    expect(check).toMatchObject({ trigger: 'manual', commitSha: merge });
    await w.h.idle();

    // Neither password anywhere: GitHub (calls, PR, git objects), Slack, logs.
    const everything = [
      JSON.stringify(w.github.calls()),
      JSON.stringify(w.github.pulls()),
      await git(w, ['log', '-p', '--all']),
      JSON.stringify(w.h.emulator.messages()),
      JSON.stringify(w.h.emulator.responses()),
      w.h.logs.join('\n'),
    ].join('\n');
    expect(everything).toContain('huge');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(ROTATED);
  });

  it('says what a person must do when nothing can be codified, and refuses a drift that is over', async () => {
    const w = await world();
    expect(await w.h.running.scheduler.request(STACK)).toMatchObject({ status: 'no_changes' });
    await editStringInput(w, 'login', ROTATED);
    const outcome = await w.h.running.scheduler.request(STACK);
    expect(outcome).toMatchObject({ status: 'drifted' });
    const run = (outcome as { run: Run }).run;
    await w.h.settle();
    const [alert] = alerts(w.h, CHANNEL);
    const at = { message: { channel: alert!.channel, ts: alert!.ts } };

    await w.h.click('driftgate.remediate', run.id, LEAD1, { ...at, id: 'nothing' });
    await w.h.settle();
    const reply = w.h.emulator
      .messages(CHANNEL)
      .filter((m) => m.threadTs === alert!.ts)
      .map(textOf)
      .find((t) => t.includes('No remediation PR'));
    expect(reply).toContain('none of the drift in prod/db can be written into the code safely');
    expect(reply).toContain('terraform_data.login.input');
    expect(reply).toContain('its value is sensitive');
    expect(writes(w.github)).toEqual([]);
    expect(w.github.pulls()).toEqual([]);
    expect((await w.h.running.context.store.listAudit({ runId: run.id })).map((a) => a.action)).toContain(
      'remediation_nothing_to_codify',
    );

    // Put back by hand: the next check resolves the drift, and the old alert's button is refused.
    await editStringInput(w, 'login', PASSWORD);
    expect(await w.h.running.scheduler.request(STACK)).toMatchObject({ status: 'no_changes' });
    const calls = w.github.calls().length;
    await w.h.click('driftgate.remediate', run.id, LEAD1, { ...at, id: 'over' });
    await w.h.settle();
    expect(textOf(w.h.emulator.responses('over').at(-1)?.body as never)).toMatch(
      new RegExp(`run ${run.id} is [a-z ]+: only a drift awaiting a decision is codified`),
    );
    expect(w.github.calls()).toHaveLength(calls);
    const everything = [
      JSON.stringify(w.h.emulator.messages()),
      JSON.stringify(w.h.emulator.responses()),
      w.h.logs.join('\n'),
    ].join('\n');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(ROTATED);
  });
});

describe('remediation PRs without GitHub credentials', () => {
  const serveWithoutGitHub = useSlackServe();
  let local: TestRepo | undefined;
  afterEach(async () => {
    await local?.cleanup();
    local = undefined;
  });

  it('shows no button, and a forged click says what is missing', async () => {
    local = await makeTestRepo();
    const statePath = join(local.dir, 'state', 'db.tfstate');
    await local.commit({ '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath) }, 'Add db');
    const h = await serveWithoutGitHub({
      stacks: {},
      config: { stacks: [DB_ENTRY], ...gitSource(local.url, { repository: 'acme/infra' }) },
    });
    const work = join(local.dir, 'work', 'db');
    const env = { env: { ...h.env, TF_VAR_password: PASSWORD }, extendEnv: false, cwd: work };
    await execa('terraform', ['init', '-input=false', '-no-color'], env);
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], env);
    expect(await h.running.scheduler.request(STACK)).toMatchObject({ status: 'no_changes' });
    await editResourceInput(
      { binary: 'terraform', env: env.env },
      work,
      { type: 'terraform_data', name: 'db' },
      (input) => {
        input.size = 'huge';
      },
    );
    const outcome = await h.running.scheduler.request(STACK);
    expect(outcome).toMatchObject({ status: 'drifted' });
    await h.settle();
    const [alert] = alerts(h, CHANNEL);
    expect(actionIds(alert)).toContain('driftgate.approve');
    expect(actionIds(alert)).not.toContain('driftgate.remediate');
    await h.click('driftgate.remediate', (outcome as { run: Run }).run.id, LEAD1, {
      id: 'forged',
      message: { channel: alert!.channel, ts: alert!.ts },
    });
    await h.settle();
    expect(textOf(h.emulator.responses('forged').at(-1)?.body as never)).toContain(
      'Remediation pull requests need a GitHub integration (GITHUB_TOKEN or a GitHub App)',
    );
  });
});

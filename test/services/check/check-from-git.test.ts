import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSources } from '../../../src/adapters/git/git-sources.js';
import { createAppContext, type AppContext } from '../../../src/app/context.js';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { parseConfig } from '../../../src/config/load.js';
import type { DomainEvent } from '../../../src/domain/events.js';
import { applyAtPlannedCommit } from '../../../src/services/apply/apply-at-planned-commit.js';
import { checkStackFromSource } from '../../../src/services/check/check-stack-from-source.js';
import { resolveStackAtHead } from '../../../src/services/source/resolve-stack-at-head.js';
import { makeTestRepo, type TestRepo } from '../../adapters/git/git-repo.js';
import { lineSink } from '../../helpers/stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';
import { gitStackYaml, stackHcl } from '../../helpers/git-stack.js';

let repo: TestRepo | undefined;
let tf: TestTerraformEnv | undefined;
let context: AppContext | undefined;
afterEach(async () => {
  await context?.close();
  await repo?.cleanup();
  await tf?.cleanup();
  repo = tf = context = undefined;
});

async function setup() {
  repo = await makeTestRepo();
  tf = await makeTerraformEnv('driftgate-gitsrc-');
  const env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
  const dataDir = join(tf.dir, 'data');
  const config = await parseConfig(gitStackYaml(dataDir, repo.url, { subpath: 'infra' }), { baseDir: tf.dir, env });
  const { stream } = lineSink();
  context = await createAppContext(config, { env, logDestination: stream });
  const git = createGitSources({ dataDir, env });
  return { env, dataDir, git, deps: { ...context.deps, git }, stack: context.stack('prod/db')! };
}

describe('checks of stacks from a Git repository, with real git and terraform', () => {
  it('plans at the branch head, records the commit, and tells drift from a pending change', async () => {
    const { env, dataDir, deps, stack, git } = await setup();
    expect(stack.git).toMatchObject({ url: repo!.url, branch: 'main', path: 'infra/db' });
    const statePath = join(tf!.dir, 'state', 'db.tfstate');
    const a = await repo!.commit(
      { '.gitignore': '.terraform/\n', 'infra/db/main.tf': stackHcl(statePath, 'small') },
      'Add db (#3)',
    );

    // Applied elsewhere at A (the test's own clone is at A), then baselined.
    const work = join(repo!.dir, 'work', 'infra', 'db');
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: work,
      env,
      extendEnv: false,
    });
    await context!.store.upsertStack(stack.name);
    await context!.store.setLastAppliedCommit(stack.name, a);
    const events: DomainEvent[] = [];
    deps.bus.onAny((e) => void events.push(e));

    const clean = await checkStackFromSource(deps, stack, { trigger: 'schedule' });
    expect(clean).toMatchObject({ status: 'no_changes', run: { commitSha: a } });

    await editResourceInput({ binary: 'terraform', env }, work, { type: 'terraform_data', name: 'db' }, (input) => {
      input.size = 'huge';
    });
    const drift = await checkStackFromSource(deps, stack, { trigger: 'schedule' });
    expect(drift).toMatchObject({ status: 'drifted', run: { commitSha: a, kind: 'drift' } });

    const b = await repo!.commit({ 'infra/db/main.tf': stackHcl(statePath, 'medium') }, 'Resize db (#34)');
    const pending = await checkStackFromSource(deps, stack, { trigger: 'schedule' });
    expect(pending).toMatchObject({ status: 'pending_approval', run: { commitSha: b, kind: 'pending_change' } });
    expect(events.map((e) => e.type)).toEqual(['no_changes', 'drift_detected', 'plan_pending_approval']);
    expect((await context!.store.getRun(pending.status === 'pending_approval' ? pending.run.id : ''))?.commitSha).toBe(
      b,
    );

    // One clone for all three checks, and no worktree left behind.
    const clones = await readdir(join(dataDir, 'git'));
    expect(clones).toHaveLength(1);
    expect(await readdir(join(dataDir, 'git', clones[0]!, 'worktrees'))).toEqual([]);

    const head = await resolveStackAtHead({ git }, stack);
    expect(head.commitSha).toBe(b);
    expect(head.commit).toMatchObject({ title: 'Resize db (#34)', prNumber: 34, author: 'Ada Lovelace' });
    expect(head.stack.dir.endsWith(join('infra', 'db'))).toBe(true);
    await head.release();

    // Applying the pending change happens in a checkout of B even after the branch moved on to C, and B
    // becomes the commit last applied; the verification plan at B is clean.
    await repo!.commit({ 'infra/db/main.tf': stackHcl(statePath, 'tiny') }, 'Shrink db (#35)');
    const applied = await applyAtPlannedCommit(
      deps,
      stack,
      pending.status === 'pending_approval' ? pending.run.id : '',
      'U0LEAD1',
    );
    expect(applied).toMatchObject({ status: 'applied', verification: { status: 'no_changes', run: { commitSha: b } } });
    expect((await context!.store.getStack(stack.name))?.lastAppliedCommit).toBe(b);
    const state = JSON.parse(
      (await execa('terraform', ['state', 'pull'], { cwd: work, env, extendEnv: false })).stdout,
    );
    expect(JSON.stringify(state)).toContain('medium');
    expect(await readdir(join(dataDir, 'git', clones[0]!, 'worktrees')).catch(() => [])).toEqual([]);
  });

  it('reports a missing branch as an errored check naming the URL and branch', async () => {
    const { deps, stack } = await setup();
    await repo!.commit({ 'infra/db/main.tf': '' }, 'init');
    const outcome = await checkStackFromSource(
      deps,
      { ...stack, git: { ...stack.git!, branch: 'nope' } },
      { trigger: 'manual' },
    );
    expect(outcome).toMatchObject({ status: 'errored' });
    expect(outcome.status === 'errored' && outcome.error).toContain(`branch nope does not exist in ${repo!.url}`);
    // Recorded like a failed plan: an errored run, and plan_failed for Slack and the metrics.
    expect(outcome).toMatchObject({ run: { state: 'errored', stack: stack.name, trigger: 'manual' } });
    expect((await deps.store.getStack(stack.name))?.status).toBe('errored');
  });
});

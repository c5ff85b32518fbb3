import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { checkStackFromSource } from '../../../src/services/check/check-stack-from-source.js';
import { gitSourcesOf, makeGitStackEnv, stackHcl, type GitStackEnv } from '../../helpers/git-stack.js';

let fixture: GitStackEnv | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

describe('a clean plan at a newer commit, with real git and terraform', () => {
  it('makes that commit the one last applied, so the next drift at it is drift and not a pending change', async () => {
    fixture = await makeGitStackEnv();
    const { repo, tf, context, env } = fixture;
    const deps = { ...context.deps, git: gitSourcesOf(fixture) };
    const stack = context.stack('prod/db')!;
    const statePath = join(tf.dir, 'state', 'db.tfstate');
    const work = join(repo.dir, 'work', 'db');
    const terraform = { binary: 'terraform', env };
    const setSize = (size: string) =>
      editResourceInput(terraform, work, { type: 'terraform_data', name: 'db' }, (input) => {
        input.size = size;
      });

    const a = await repo.commit(
      { '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath, 'small') },
      'Add db (#3)',
    );
    await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: work, env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: work,
      env,
      extendEnv: false,
    });
    await context.store.upsertStack(stack.name);
    await context.store.setLastAppliedCommit(stack.name, a);

    // Drift at A, then a commit that writes the real value into the code (a merged remediation PR).
    await setSize('huge');
    expect(await checkStackFromSource(deps, stack, { trigger: 'schedule' })).toMatchObject({
      status: 'drifted',
      run: { commitSha: a },
    });
    const b = await repo.commit({ 'db/main.tf': stackHcl(statePath, 'huge') }, 'Codify db size (#7)');
    const clean = await checkStackFromSource(deps, stack, { trigger: 'webhook' });
    expect(clean).toMatchObject({ status: 'no_changes', resolved: true, run: { commitSha: b, trigger: 'webhook' } });
    expect((await context.store.getStack(stack.name))?.lastAppliedCommit).toBe(b);
    expect(
      (await context.store.listAudit({ stack: stack.name }))
        .filter((e) => e.action === 'baseline')
        .map((e) => [e.actor, e.runId, e.detail]),
    ).toEqual([
      ['system', clean.status === 'no_changes' ? clean.run.id : '', { commit: b, previous: a, source: 'clean_plan' }],
    ]);

    await setSize('tiny');
    expect(await checkStackFromSource(deps, stack, { trigger: 'schedule' })).toMatchObject({
      status: 'drifted',
      run: { commitSha: b, kind: 'drift' },
    });

    // A clean plan at the commit already recorded records nothing again.
    await setSize('huge');
    expect(await checkStackFromSource(deps, stack, { trigger: 'schedule' })).toMatchObject({
      status: 'no_changes',
      run: { commitSha: b },
    });
    expect((await context.store.listAudit({ stack: stack.name })).filter((e) => e.action === 'baseline')).toHaveLength(
      1,
    );
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../src/services/runtime/artifacts.js';
import { applySavedPlan } from '../../../src/services/apply/apply-saved-plan.js';
import { checkStack, type CheckOutcome } from '../../../src/services/check/check-stack.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';

/**
 * A plan the same as an earlier one (a perpetual diff, drift nobody has dealt with) reuses that plan's
 * analysis without `terraform show -json`, and an apply still applies exactly the plan its run recorded.
 */
const STACK = 'resource "terraform_data" "queue" {\n  input = { name = "jobs", retention = 4 }\n}\n';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** How many times driftgate ran `terraform show` so far (the runner logs every command's argv). */
const shows = (a: TestApp) =>
  a.logs.filter((line) => line.includes('"terraform command"') && line.includes('"show"')).length;

function changed(outcome: CheckOutcome) {
  if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
  return outcome;
}

describe('an unchanged plan', () => {
  it('reuses the earlier analysis without show -json, and the apply applies its own saved plan', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps, store } = app.context;
    const stack = app.context.stack('queue')!;

    const first = changed(await checkStack(deps, stack, { trigger: 'manual' }));
    expect(shows(app)).toBe(1);
    const second = changed(await checkStack(deps, stack, { trigger: 'schedule' }));
    expect(shows(app)).toBe(1);
    expect(second.isNew).toBe(false);
    expect(second.analysis).toEqual(first.analysis);
    expect(app.logs.some((l) => l.includes(`"reusedFrom":"${first.run.id}"`))).toBe(true);

    // The new run has its own saved plan (the same bytes or not: terraform decides); what the reviewer sees is the same.
    expect(second.run.planSha256).toBeDefined();
    const own = (await store.listArtifacts(second.run.id)).find((a) => a.kind === 'plan');
    expect(own?.sha256).toBe(second.run.planSha256);
    expect(await loadArtifact(deps, second.run.id, 'plan_json')).toEqual(
      await loadArtifact(deps, first.run.id, 'plan_json'),
    );

    // The earlier run was superseded: only the new run's plan can be applied, and it is.
    expect(await applySavedPlan(deps, stack, first.run.id, 'U1')).toMatchObject({ status: 'refused' });
    expect(await applySavedPlan(deps, stack, second.run.id, 'U1')).toMatchObject({
      status: 'applied',
      verification: { status: 'no_changes' },
    });
  });

  it('is analysed afresh once the plan differs in anything terraform shows', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps } = app.context;
    const stack = app.context.stack('queue')!;
    const first = changed(await checkStack(deps, stack, { trigger: 'manual' }));
    const main = join(stack.dir, 'main.tf');
    await writeFile(main, (await readFile(main, 'utf8')).replace('retention = 4', 'retention = 5'));
    const second = changed(await checkStack(deps, stack, { trigger: 'manual' }));
    expect(shows(app)).toBe(2);
    expect(second.analysis.fingerprint).not.toBe(first.analysis.fingerprint);
    expect(second.isNew).toBe(true);
  });
});

/**
 * One run of real terraform: the committed fixtures must still be what terraform produces, and the
 * secrets it writes into plan JSON (sensitive variable, its unmarked copy in terraform_data's output,
 * a module-call constant) must not survive analysis.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import type { PlanAnalysis } from '../../../src/domain/plan/model.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';
import { FIXTURE_SECRETS, generateDataStackPlans, type DataStackPlans } from '../../fixtures/plans/make-fixtures.js';
import { expectNoSecret } from './no-leak.js';
import { readFixture } from './plan-builder.js';

function actionsOf(analysis: PlanAnalysis): string[] {
  return analysis.changes.map((c) => `${c.address} ${c.action} ${c.replaceOrder ?? ''}`).sort();
}

describe('plan analysis on a live terraform run', () => {
  let tf: TestTerraformEnv;
  let plans: DataStackPlans;

  beforeAll(async () => {
    tf = await makeTerraformEnv('driftgate-plan-live-');
    const stack = join(tf.dir, 'stack');
    await mkdir(stack);
    plans = await generateDataStackPlans(stack, tf.env);
  });
  afterAll(async () => {
    await tf?.cleanup();
  });

  it('the plan JSON really holds the secrets in clear (so the next test can fail)', () => {
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(plans.changes).toContain(secret);
  });

  it('analyses the changes plan like the committed fixture, with every secret masked', () => {
    const { analysis, redactor } = analyzePlan(parsePlanJson(plans.changes));
    const committed = analyzePlan(parsePlanJson(readFixture('data-changes.json'))).analysis;
    expect(actionsOf(analysis)).toEqual(actionsOf(committed));
    expect(analysis.counts).toEqual(committed.counts);
    expectNoSecret(analysis, Object.values(FIXTURE_SECRETS));
    const output = analysis.changes
      .find((c) => c.address === 'terraform_data.password')!
      .attributes.find((a) => a.path === 'output');
    expect(output?.before).toEqual({ kind: 'sensitive' });
    expect(redactor.redact(`stderr: ${FIXTURE_SECRETS.moduleToken}`)).toBe('stderr: (sensitive value)');
  });

  it('analyses the create plan like the committed fixture', () => {
    const { analysis } = analyzePlan(parsePlanJson(plans.create));
    expect(analysis.fingerprint).toBe(analyzePlan(parsePlanJson(readFixture('data-create.json'))).analysis.fingerprint);
    expectNoSecret(analysis, Object.values(FIXTURE_SECRETS));
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { relevantDrift } from '../../../src/domain/plan/relevant-drift.js';
import { type PlanJson, parsePlanJson } from '../../../src/domain/plan/schema.js';
import { buildPolicyInput } from '../../../src/domain/policy/input.js';
import { FIXTURE_DIR } from './plan-builder.js';

/**
 * `s3-refresh-noise.json` is real: the AWS provider 5.100.0 against s3rver, three `aws_s3_object`s applied
 * without tags or metadata, then c.txt's content type changed with the S3 API. Refresh reports all three
 * as changed outside terraform (tags and metadata null -> {} on each); only c's content type is drift,
 * and it is the only change the plan makes.
 */
const noisy = (): PlanJson => parsePlanJson(readFileSync(join(FIXTURE_DIR, 's3-refresh-noise.json'), 'utf8'));

describe('real drift only', () => {
  it('counts the changed object and not the two a provider normalised', () => {
    const { analysis } = analyzePlan(noisy());
    expect(analysis.drift.map((d) => d.address)).toEqual(['aws_s3_object.c']);
    expect(analysis.driftNotRelevant).toEqual(['aws_s3_object.a', 'aws_s3_object.b']);
    // The fingerprint and the policies see the same: noise moves neither.
    const withoutNoise = noisy();
    withoutNoise.resource_drift = withoutNoise.resource_drift!.filter((d) => d.address === 'aws_s3_object.c');
    expect(analyzePlan(withoutNoise).analysis.fingerprint).toBe(analysis.fingerprint);
    const input = buildPolicyInput(noisy(), analyzePlan(noisy()).redactor, { name: 's', labels: [] }, 'drift');
    expect(input.terraform.resource_drift.map((d) => d.address)).toEqual(['aws_s3_object.c']);
  });

  it('finds no drift in a plan whose only outside changes are normalisation', () => {
    const plan = noisy();
    plan.resource_drift = plan.resource_drift!.filter((d) => d.address !== 'aws_s3_object.c');
    plan.resource_changes = plan.resource_changes!.filter((d) => d.address !== 'aws_s3_object.c');
    expect(analyzePlan(plan).analysis.drift).toEqual([]);
  });

  it('keeps an outside change the plan depends on (relevant_attributes), and one made or deleted outside', () => {
    const plan = noisy();
    const a = plan.resource_drift!.find((d) => d.address === 'aws_s3_object.a')!;
    const b = plan.resource_drift!.find((d) => d.address === 'aws_s3_object.b')!;
    // a's content type changed by hand, and another resource reads it: the plan does not change it back.
    a.change.after = { ...(a.change.after as object), content_type: 'text/html' };
    plan.relevant_attributes = [{ resource: 'aws_s3_object.a', attribute: ['content_type'] }];
    // b deleted outside terraform.
    b.change.actions = ['delete'];
    b.change.after = null;
    expect(relevantDrift(plan).relevant.map((d) => d.address)).toEqual([
      'aws_s3_object.a',
      'aws_s3_object.b',
      'aws_s3_object.c',
    ]);
    // Without the reference, a's change is one nothing in the plan depends on or changes back.
    delete plan.relevant_attributes;
    expect(relevantDrift(plan).notRelevant).toEqual(['aws_s3_object.a']);
  });

  it('reads relevant_attributes as terraform writes it, and refuses a malformed one saying where', () => {
    const text = readFileSync(join(FIXTURE_DIR, 's3-refresh-noise.json'), 'utf8');
    const doc = JSON.parse(text);
    doc.relevant_attributes = [{ resource: 'aws_s3_object.a', attribute: ['tags', 'Team'] }];
    expect(parsePlanJson(JSON.stringify(doc)).relevant_attributes).toEqual(doc.relevant_attributes);
    doc.relevant_attributes = [{ resource: 'aws_s3_object.a', attribute: 'tags' }];
    expect(() => parsePlanJson(JSON.stringify(doc))).toThrow(/relevant_attributes/);
  });
});

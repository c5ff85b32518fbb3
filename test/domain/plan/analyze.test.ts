import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import type { AttributeChange, PlanAnalysis, ResourceChange } from '../../../src/domain/plan/model.js';
import { collectSecrets, isDistinctiveSecret } from '../../../src/domain/plan/redact.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { expectNoSecret } from './no-leak.js';
import { ALL_FIXTURE_SECRETS, readFixture, REAL_FIXTURES } from './plan-builder.js';

function analyse(name: string): PlanAnalysis {
  return analyzePlan(parsePlanJson(readFixture(name))).analysis;
}

function find(list: ResourceChange[], address: string): ResourceChange {
  const change = list.find((c) => c.address === address);
  if (!change) throw new Error(`no change for ${address}; have ${list.map((c) => c.address).join(', ')}`);
  return change;
}

function attr(change: ResourceChange, path: string): AttributeChange {
  const a = change.attributes.find((x) => x.path === path);
  if (!a)
    throw new Error(
      `no attribute ${path} on ${change.address}; have ${change.attributes.map((x) => x.path).join(', ')}`,
    );
  return a;
}

describe('analyzePlan over real terraform fixtures', () => {
  const summaries: [string, Partial<PlanAnalysis>][] = [
    [
      'data-create.json',
      {
        counts: { create: 8, update: 0, delete: 0, replace: 0, read: 0 },
        hasChanges: true,
        applyable: true,
        resourceCount: 0,
      },
    ],
    [
      'data-changes.json',
      {
        counts: { create: 1, update: 3, delete: 1, replace: 3, read: 0 },
        hasChanges: true,
        applyable: true,
        resourceCount: 8,
      },
    ],
    // terraform itself marks a plan without changes not applyable.
    [
      'data-no-changes.json',
      {
        counts: { create: 0, update: 0, delete: 0, replace: 0, read: 0 },
        hasChanges: false,
        applyable: false,
        resourceCount: 8,
      },
    ],
    [
      's3-drift.json',
      {
        counts: { create: 0, update: 1, delete: 0, replace: 0, read: 0 },
        hasChanges: true,
        applyable: true,
        resourceCount: 1,
      },
    ],
  ];

  it.each(summaries)('%s: counts, flags and resource count', (name, expected) => {
    const analysis = analyse(name);
    expect(analysis).toMatchObject({
      terraformVersion: '1.11.4',
      formatVersion: expect.stringMatching(/^1\./),
      ...expected,
    });
    expect(analysis.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each(REAL_FIXTURES)('%s: no secret anywhere in the analysis or its rendering', (name) => {
    const plan = parsePlanJson(readFixture(name));
    const { analysis, redactor } = analyzePlan(plan);
    const secrets = collectSecrets(plan);
    expectNoSecret(analysis, [...secrets, ...ALL_FIXTURE_SECRETS]);
    for (const secret of secrets) {
      if (!isDistinctiveSecret(String(secret))) continue;
      expect(redactor.redact(`error near ${secret}!`)).toBe('error near (sensitive value)!');
    }
  });

  const actions: [string, Partial<ResourceChange>][] = [
    ['terraform_data.legacy', { action: 'delete', actionReason: 'delete_because_no_resource_config' }],
    ['terraform_data.db', { action: 'replace', replaceOrder: 'delete-first', replacePaths: ['triggers_replace'] }],
    ['terraform_data.cache', { action: 'replace', replaceOrder: 'create-first', replacePaths: ['triggers_replace'] }],
    [
      'module.app.terraform_data.token',
      { action: 'replace', replaceOrder: 'delete-first', moduleAddress: 'module.app' },
    ],
    ['terraform_data.conn', { action: 'create' }],
    ['terraform_data.edited', { action: 'update' }],
    ['terraform_data.new_name', { action: 'no-op', previousAddress: 'terraform_data.old_name', attributes: [] }],
    [
      'terraform_data.web',
      {
        action: 'update',
        type: 'terraform_data',
        name: 'web',
        mode: 'managed',
        providerName: 'terraform.io/builtin/terraform',
      },
    ],
  ];

  it.each(actions)('data-changes.json: %s', (address, expected) => {
    expect(find(analyse('data-changes.json').changes, address)).toMatchObject(expected);
  });

  it('data-changes.json: nested attribute paths, list growth and unknowns', () => {
    const web = find(analyse('data-changes.json').changes, 'terraform_data.web');
    expect(attr(web, 'input.tags["team.owner"]')).toMatchObject({
      segments: ['input', 'tags', 'team.owner'],
      before: { kind: 'value', value: 'ops' },
      after: { kind: 'value', value: 'platform' },
      forcesReplacement: false,
    });
    expect(attr(web, 'input.ports[2]')).toMatchObject({
      before: { kind: 'absent' },
      after: { kind: 'value', value: 8443 },
    });
    expect(attr(web, 'input.name').after).toEqual({ kind: 'value', value: 'web-production' });
    expect(attr(web, 'output').after).toEqual({ kind: 'unknown' });
    expect(web.attributes.map((a) => a.path)).not.toContain('input.ports[0]');
  });

  it('data-changes.json: forces replacement on the replace path only', () => {
    const db = find(analyse('data-changes.json').changes, 'terraform_data.db');
    expect(attr(db, 'triggers_replace')).toMatchObject({
      forcesReplacement: true,
      before: { value: 'staging' },
      after: { value: 'production' },
    });
    expect(attr(db, 'output').forcesReplacement).toBe(false);
  });

  it('masks by mark, and by value the unmarked copies terraform_data keeps in `output`', () => {
    const analysis = analyse('data-changes.json');
    const password = find(analysis.changes, 'terraform_data.password');
    expect(attr(password, 'input')).toMatchObject({ before: { kind: 'sensitive' }, after: { kind: 'sensitive' } });
    // `output` is not marked sensitive in the plan: it is masked because it equals the old secret.
    expect(attr(password, 'output')).toMatchObject({ before: { kind: 'sensitive' }, after: { kind: 'unknown' } });
    const token = find(analysis.changes, 'module.app.terraform_data.token');
    expect(attr(token, 'output').before).toEqual({ kind: 'sensitive' });
    // nonsensitive() stripped the mark; the secret inside the URL is still hidden.
    expect(attr(find(analysis.changes, 'terraform_data.conn'), 'input.url').after).toEqual({
      kind: 'value',
      value: 'postgres://app:(sensitive value)@db:5432/app',
    });
  });

  it('data-changes.json: outputs, sensitive ones masked', () => {
    expect(analyse('data-changes.json').outputs).toEqual([
      {
        name: 'db_password',
        action: 'update',
        before: { kind: 'sensitive' },
        after: { kind: 'sensitive' },
        sensitive: true,
      },
      {
        name: 'env',
        action: 'update',
        before: { kind: 'value', value: 'staging' },
        after: { kind: 'value', value: 'production' },
        sensitive: false,
      },
    ]);
  });

  it('data-create.json: creates list every leaf, unknowns included', () => {
    const web = find(analyse('data-create.json').changes, 'terraform_data.web');
    expect(web.attributes.map((a) => a.path)).toEqual([
      'id',
      'input.name',
      'input.ports[0]',
      'input.ports[1]',
      'input.tags.Name',
      'input.tags["team.owner"]',
      'output',
    ]);
    expect(attr(web, 'id')).toMatchObject({ before: { kind: 'absent' }, after: { kind: 'unknown' } });
  });

  it('s3-drift.json: resource_drift becomes drift, the plan reverts it', () => {
    const analysis = analyse('s3-drift.json');
    const drift = find(analysis.drift, 'aws_s3_object.report');
    expect(drift.action).toBe('update');
    expect(attr(drift, 'tags.Name').after).toEqual({ kind: 'value', value: 'changed-by-hand' });
    expect(attr(drift, 'tags.owner')).toMatchObject({
      before: { kind: 'absent' },
      after: { kind: 'value', value: 'someone' },
    });
    const change = find(analysis.changes, 'aws_s3_object.report');
    expect(attr(change, 'tags.Name')).toMatchObject({
      before: { value: 'changed-by-hand' },
      after: { value: 'report' },
    });
    expect(attr(change, 'tags.owner').after).toEqual({ kind: 'absent' });
  });
});

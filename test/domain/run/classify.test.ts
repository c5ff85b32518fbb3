import { describe, expect, it } from 'vitest';
import type { PlanAnalysis } from '../../../src/domain/plan/model.js';
import { classifyRun, findsNoState } from '../../../src/domain/run/classify.js';
import type { ResourceChange } from '../../../src/domain/plan/model.js';

function analysis(hasChanges: boolean): PlanAnalysis {
  const counts = { create: hasChanges ? 1 : 0, update: 0, delete: 0, replace: 0, read: 0 };
  return {
    terraformVersion: '1.11.4',
    formatVersion: '1.2',
    changes: [],
    drift: [],
    outputs: [],
    counts,
    hasChanges,
    fingerprint: 'f'.repeat(64),
    resourceCount: 1,
    applyable: true,
  };
}

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('classifyRun', () => {
  it.each([
    {
      why: 'no changes, no Git',
      hasChanges: false,
      commitSha: undefined,
      lastAppliedCommit: undefined,
      kind: undefined,
    },
    { why: 'no changes at a newer commit', hasChanges: false, commitSha: B, lastAppliedCommit: A, kind: undefined },
    {
      why: 'changes without Git information',
      hasChanges: true,
      commitSha: undefined,
      lastAppliedCommit: undefined,
      kind: 'drift',
    },
    {
      why: 'changes at a commit, nothing applied yet',
      hasChanges: true,
      commitSha: B,
      lastAppliedCommit: undefined,
      kind: 'drift',
    },
    {
      why: 'changes, applied commit known but plan commit unknown',
      hasChanges: true,
      commitSha: undefined,
      lastAppliedCommit: A,
      kind: 'drift',
    },
    { why: 'changes at the commit last applied', hasChanges: true, commitSha: A, lastAppliedCommit: A, kind: 'drift' },
    { why: 'changes at a newer commit', hasChanges: true, commitSha: B, lastAppliedCommit: A, kind: 'pending_change' },
    {
      why: 'changes, empty commit strings count as unknown',
      hasChanges: true,
      commitSha: '',
      lastAppliedCommit: A,
      kind: 'drift',
    },
  ] as const)('$why: $kind', ({ hasChanges, commitSha, lastAppliedCommit, kind }) => {
    expect(classifyRun({ analysis: analysis(hasChanges), commitSha, lastAppliedCommit })).toBe(kind);
  });
});

describe('findsNoState', () => {
  const change = (action: ResourceChange['action'], more: Partial<ResourceChange> = {}): ResourceChange => ({
    address: `terraform_data.${action}`,
    mode: 'managed',
    type: 'terraform_data',
    name: action,
    providerName: 'terraform.io/builtin/terraform',
    action,
    attributes: [],
    replacePaths: [],
    ...more,
  });
  const plan = (resourceCount: number, changes: ResourceChange[]): PlanAnalysis => ({
    ...analysis(changes.length > 0),
    resourceCount,
    changes,
  });

  it.each([
    {
      why: 'every resource created into an empty state',
      found: true,
      p: plan(0, [change('create'), change('create')]),
    },
    {
      why: 'creates and data reads into an empty state',
      found: true,
      p: plan(0, [change('create'), change('read', { mode: 'data' })]),
    },
    { why: 'new resources beside ones in state: a change', found: false, p: plan(2, [change('create')]) },
    {
      why: 'an import into an empty state: adoption',
      found: false,
      p: plan(0, [change('create', { importing: true })]),
    },
    { why: 'no changes', found: false, p: plan(0, []) },
    { why: 'only reads', found: false, p: plan(0, [change('read', { mode: 'data' })]) },
  ])('$why', ({ p, found }) => {
    expect(findsNoState(p)).toBe(found);
  });
});

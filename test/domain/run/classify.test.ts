import { describe, expect, it } from 'vitest';
import type { PlanAnalysis } from '../../../src/domain/plan/model.js';
import { classifyRun } from '../../../src/domain/run/classify.js';

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

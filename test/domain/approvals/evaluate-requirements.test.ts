import { describe, expect, it } from 'vitest';
import { evaluateApprovals, progressOf } from '../../../src/domain/approvals/evaluate.js';
import type { Approval, ApprovalRequirement } from '../../../src/domain/approvals/model.js';

const LEADS: ApprovalRequirement = { count: 2, groups: ['sre-leads'], source: 'approvers.rules[0]' };
const SENIOR: ApprovalRequirement = { count: 1, groups: ['senior'], source: 'many-destroys' };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, n));
const approval = (userId: string, groups: string[] | undefined, n: number): Approval => ({
  runId: 'r',
  userId,
  at: at(n),
  ...(groups ? { groups } : {}),
});

describe('evaluateApprovals: several requirements (approvers rule + policies)', () => {
  it.each([
    {
      name: 'a lead counts toward the leads requirement only',
      existing: [],
      user: 'U1',
      groups: ['sre-leads'],
      want: { ok: true, complete: false, have: 1, need: 3, missing: '1 sre-leads, 1 senior' },
    },
    {
      name: 'someone in both groups counts toward both, once',
      existing: [approval('U1', ['sre-leads'], 1)],
      user: 'U2',
      groups: ['sre-leads', 'senior'],
      want: { ok: true, complete: true, have: 3, need: 3, missing: '' },
    },
    {
      name: 'a third lead is refused while only a senior is missing, saying so',
      existing: [approval('U1', ['sre-leads'], 1), approval('U2', ['sre-leads'], 2)],
      user: 'U3',
      groups: ['sre-leads'],
      want: { ok: false, reason: 'not_needed', message: /still needed: 1 from senior/ },
    },
    {
      name: 'a senior completes it',
      existing: [approval('U1', ['sre-leads'], 1), approval('U2', ['sre-leads'], 2)],
      user: 'U9',
      groups: ['senior'],
      want: { ok: true, complete: true, have: 3, need: 3, missing: '' },
    },
    {
      name: 'someone in neither group is refused, naming both',
      existing: [],
      user: 'U7',
      groups: ['devs'],
      want: { ok: false, reason: 'not_in_group', message: /sre-leads or senior/ },
    },
    {
      name: 'the same person twice is refused',
      existing: [approval('U1', ['sre-leads'], 1)],
      user: 'U1',
      groups: ['sre-leads'],
      want: { ok: false, reason: 'already_approved', message: /already approved/ },
    },
  ])('$name', ({ existing, user, groups, want }) => {
    const decision = evaluateApprovals({ requirements: [LEADS, SENIOR], existing, userId: user, userGroups: groups });
    if (!decision.ok) {
      expect({ ok: false, reason: decision.reason }).toEqual({ ok: false, reason: want.reason });
      expect(decision.message).toMatch(want.message as RegExp);
      return;
    }
    const missing = (decision.progress.missing ?? []).map((m) => `${m.count} ${m.groups.join('|')}`).join(', ');
    expect({
      ok: true,
      complete: decision.complete,
      have: decision.progress.have,
      need: decision.progress.need,
      missing,
    }).toEqual(want);
  });

  it('refuses the author even when they are in the right group', () => {
    const decision = evaluateApprovals({
      requirements: [LEADS],
      existing: [],
      userId: 'U5',
      userGroups: ['sre-leads'],
      authorSlackIds: ['U9', 'U5'],
    });
    expect(decision).toMatchObject({ ok: false, reason: 'author' });
  });

  it('counts older approvals recorded without groups toward every requirement', () => {
    const progress = progressOf([LEADS, SENIOR], [approval('U1', undefined, 1)]);
    expect(progress).toMatchObject({
      have: 2,
      need: 3,
      approvers: ['U1'],
      missing: [{ count: 1, groups: ['sre-leads'] }],
    });
  });
});

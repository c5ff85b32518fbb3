import { describe, expect, it } from 'vitest';
import { describeGroups, evaluateApproval, notInGroup } from '../../../src/domain/approvals/evaluate.js';
import type { Approval, ApprovalRequirement } from '../../../src/domain/approvals/model.js';

const twoSreLeads: ApprovalRequirement = { count: 2, groups: ['sre-leads'] };
const onePlatform: ApprovalRequirement = { count: 1, groups: ['platform', 'sre-leads'] };
const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));
const approval = (userId: string, s = 0): Approval => ({ runId: 'r1', userId, at: at(s) });

describe('evaluateApproval', () => {
  it.each([
    {
      case: 'first of two sre-leads',
      requirement: twoSreLeads,
      existing: [],
      userId: 'U1',
      userGroups: ['sre-leads'],
      want: { ok: true, complete: false, progress: { have: 1, need: 2, approvers: ['U1'] } },
    },
    {
      case: 'second of two sre-leads completes',
      requirement: twoSreLeads,
      existing: [approval('U1')],
      userId: 'U2',
      userGroups: ['sre-leads', 'devs'],
      want: { ok: true, complete: true, progress: { have: 2, need: 2, approvers: ['U1', 'U2'] } },
    },
    {
      case: 'a user counts once',
      requirement: twoSreLeads,
      existing: [approval('U1')],
      userId: 'U1',
      userGroups: ['sre-leads'],
      want: { ok: false, reason: 'already_approved' },
    },
    {
      case: 'a duplicate row of the same user is still one approval',
      requirement: twoSreLeads,
      existing: [approval('U1', 1), approval('U1', 2)],
      userId: 'U3',
      userGroups: ['sre-leads'],
      want: { ok: true, complete: true, progress: { have: 2, need: 2, approvers: ['U1', 'U3'] } },
    },
    {
      case: 'not in the group',
      requirement: twoSreLeads,
      existing: [],
      userId: 'U5',
      userGroups: ['devs'],
      want: { ok: false, reason: 'not_in_group' },
    },
    {
      case: 'in no group at all',
      requirement: twoSreLeads,
      existing: [],
      userId: 'U5',
      userGroups: [],
      want: { ok: false, reason: 'not_in_group' },
    },
    {
      case: 'the author cannot approve, even in the group',
      requirement: twoSreLeads,
      existing: [approval('U1')],
      userId: 'U7',
      userGroups: ['sre-leads'],
      authorSlackId: 'U7',
      want: { ok: false, reason: 'author' },
    },
    {
      case: 'someone else than the author can',
      requirement: twoSreLeads,
      existing: [approval('U1')],
      userId: 'U2',
      userGroups: ['sre-leads'],
      authorSlackId: 'U7',
      want: { ok: true, complete: true },
    },
    {
      case: 'any one of several groups is enough',
      requirement: onePlatform,
      existing: [],
      userId: 'U4',
      userGroups: ['platform'],
      want: { ok: true, complete: true, progress: { have: 1, need: 1, approvers: ['U4'] } },
    },
  ])('$case', ({ want, ...request }) => {
    expect(evaluateApproval(request)).toMatchObject(want);
  });

  it('lists approvers in the order they approved', () => {
    const decision = evaluateApproval({
      requirement: { count: 3, groups: ['a'] },
      existing: [approval('U2', 5), approval('U1', 1)],
      userId: 'U3',
      userGroups: ['a'],
    });
    expect(decision).toMatchObject({ ok: true, complete: true, progress: { approvers: ['U1', 'U2', 'U3'] } });
  });

  it('writes messages for the person who clicked, naming the groups', () => {
    const outsider = evaluateApproval({ requirement: onePlatform, existing: [], userId: 'U5', userGroups: [] });
    expect(outsider).toMatchObject({ ok: false, reason: 'not_in_group' });
    if (outsider.ok) throw new Error('unreachable');
    expect(outsider.message).toBe(
      'Only members of platform or sre-leads can approve this plan, and you are not in any of them.',
    );

    const again = evaluateApproval({
      requirement: twoSreLeads,
      existing: [approval('U1')],
      userId: 'U1',
      userGroups: ['sre-leads'],
    });
    if (again.ok) throw new Error('unreachable');
    expect(again.message).toMatch(/already approved this plan \(1\/2\)/);

    const author = evaluateApproval({
      requirement: twoSreLeads,
      existing: [],
      userId: 'U7',
      userGroups: ['sre-leads'],
      authorSlackId: 'U7',
    });
    if (author.ok) throw new Error('unreachable');
    expect(author.message).toMatch(/You authored this change/);
  });
});

describe('notInGroup', () => {
  it('lets a member decide and names the verb for an outsider', () => {
    expect(notInGroup(twoSreLeads, ['sre-leads'])).toBeUndefined();
    expect(notInGroup(twoSreLeads, ['x'], 'reject')?.message).toBe(
      'Only members of sre-leads can reject this plan, and you are not in it.',
    );
  });
});

describe('describeGroups', () => {
  it.each([
    { groups: [], want: 'no group' },
    { groups: ['a'], want: 'a' },
    { groups: ['a', 'b'], want: 'a or b' },
    { groups: ['a', 'b', 'c'], want: 'a, b or c' },
  ])('$groups', ({ groups, want }) => expect(describeGroups(groups)).toBe(want));
});

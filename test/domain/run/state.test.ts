import { describe, expect, it } from 'vitest';
import {
  AWAITING_DECISION,
  IN_FLIGHT,
  RUN_STATES,
  RUN_TRIGGERS,
  canTransition,
  isTerminal,
  type RunState,
} from '../../../src/domain/run/state.js';

/**
 * The state machine as the product means it, written out here apart from state.ts (a second, independent
 * statement: a change there must be a change here). A state not on the left has no way out.
 */
const ALLOWED_TEXT = `
  planning         -> no_changes drifted pending_approval errored interrupted
  drifted          -> approved applying rejected superseded expired errored
  pending_approval -> approved applying rejected superseded expired errored
  approved         -> applying superseded expired errored interrupted
  applying         -> applied apply_failed interrupted expired
`;
const ALLOWED: Record<string, string[]> = Object.fromEntries(
  ALLOWED_TEXT.trim()
    .split('\n')
    .map((line) => {
      const [from, to] = line.split('->').map((side) => side.trim());
      return [from, to!.split(/\s+/)];
    }),
);
const allowed = (from: RunState, to: RunState) => ALLOWED[from]?.includes(to) ?? false;

const TERMINAL: readonly RunState[] = [
  'no_changes',
  'applied',
  'apply_failed',
  'rejected',
  'errored',
  'superseded',
  'expired',
  'interrupted',
];

const PAIRS = RUN_STATES.flatMap((from) => RUN_STATES.map((to) => ({ from, to, allowed: allowed(from, to) })));

describe('run states', () => {
  it('are exactly the states the table above knows, each once', () => {
    const named = new Set(Object.entries(ALLOWED).flatMap(([from, to]) => [from, ...to]));
    expect([...named].sort()).toEqual([...RUN_STATES].sort());
    expect(new Set(RUN_STATES).size).toBe(RUN_STATES.length);
  });

  it('start in planning: no state moves back into it', () => {
    expect(PAIRS.filter((p) => p.to === 'planning' && canTransition(p.from, p.to))).toEqual([]);
  });

  it('triggers are schedule, manual, verify, startup, webhook and event', () => {
    expect([...RUN_TRIGGERS]).toEqual(['schedule', 'manual', 'verify', 'startup', 'webhook', 'event']);
  });

  it('never stay where they are', () => {
    expect(RUN_STATES.filter((s) => canTransition(s, s))).toEqual([]);
  });
});

describe('canTransition over every (from, to) pair', () => {
  it.each(PAIRS.filter((p) => p.allowed))('allows $from -> $to', ({ from, to }) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each(PAIRS.filter((p) => !p.allowed))('refuses $from -> $to', ({ from, to }) => {
    expect(canTransition(from, to)).toBe(false);
  });

  it('allows exactly the listed pairs and nothing else', () => {
    const allowed = PAIRS.filter((p) => canTransition(p.from, p.to)).map((p) => `${p.from}->${p.to}`);
    expect(allowed.sort()).toEqual(
      PAIRS.filter((p) => p.allowed)
        .map((p) => `${p.from}->${p.to}`)
        .sort(),
    );
    expect(allowed).toHaveLength(26);
  });
});

describe('isTerminal', () => {
  it.each(RUN_STATES.map((state) => ({ state, terminal: TERMINAL.includes(state) })))(
    '$state terminal: $terminal',
    ({ state, terminal }) => {
      expect(isTerminal(state)).toBe(terminal);
    },
  );

  it('holds for exactly the states with no way out', () => {
    expect(RUN_STATES.filter(isTerminal)).toEqual(TERMINAL);
    expect(RUN_STATES.filter((s) => !(s in ALLOWED))).toEqual(TERMINAL);
  });
});

describe('state groups', () => {
  it('AWAITING_DECISION is drifted, pending_approval and approved', () => {
    expect([...AWAITING_DECISION]).toEqual(['drifted', 'pending_approval', 'approved']);
  });

  it('IN_FLIGHT is planning and applying', () => {
    expect([...IN_FLIGHT]).toEqual(['planning', 'applying']);
  });

  it('a run awaiting a decision can be applied, superseded, expired or errored, and is not terminal', () => {
    for (const state of AWAITING_DECISION) {
      expect(isTerminal(state)).toBe(false);
      expect(
        ['applying', 'superseded', 'expired', 'errored'].filter((to) => !canTransition(state, to as RunState)),
      ).toEqual([]);
    }
  });

  it('an in-flight run can be interrupted (recovery after a crash) and is not terminal', () => {
    for (const state of IN_FLIGHT) {
      expect(isTerminal(state)).toBe(false);
      expect(canTransition(state, 'interrupted')).toBe(true);
    }
    // approved too: found at start with its apply handed to terraform, though the store lost `applying`.
    expect(RUN_STATES.filter((s) => canTransition(s, 'interrupted'))).toEqual(['planning', 'approved', 'applying']);
  });

  it('awaiting, in flight and terminal split the states with no overlap', () => {
    const groups = [...AWAITING_DECISION, ...IN_FLIGHT, ...TERMINAL];
    expect(groups.sort()).toEqual([...RUN_STATES].sort());
  });
});

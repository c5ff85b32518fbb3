import { describe, expect, it } from 'vitest';
import { useTempStore } from './temp-store.js';

describe('checks in a row with the same plan', () => {
  const tmp = useTempStore();

  it('counts the same fingerprint, starts over on another, ends on a clean plan, and survives a reopen', () => {
    const store = tmp.open();
    expect(store.countSamePlan('net', 'f1')).toBe(1);
    expect(store.getStack('net')?.samePlan).toBeUndefined();
    expect(store.countSamePlan('net', 'f1')).toBe(2);
    expect(store.getStack('net')?.samePlan).toEqual({ fingerprint: 'f1', checks: 2 });
    expect(store.countSamePlan('net', 'f2')).toBe(1);
    expect(store.countSamePlan('net', 'f2')).toBe(2);
    expect(tmp.open().countSamePlan('net', 'f2')).toBe(3);
    expect(store.countSamePlan('net', undefined)).toBe(0);
    expect(store.getStack('net')?.samePlan).toBeUndefined();
    expect(store.countSamePlan('net', 'f2')).toBe(1);
  });
});

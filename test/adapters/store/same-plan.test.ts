import { describe, expect, it } from 'vitest';
import { useTempStore } from './temp-store.js';

describe('checks in a row with the same plan', () => {
  const tmp = useTempStore();

  it('counts the same fingerprint, starts over on another, ends on a clean plan, and survives a reopen', async () => {
    const store = tmp.open();
    expect(await store.countSamePlan('net', 'f1')).toBe(1);
    expect((await store.getStack('net'))?.samePlan).toBeUndefined();
    expect(await store.countSamePlan('net', 'f1')).toBe(2);
    expect((await store.getStack('net'))?.samePlan).toEqual({ fingerprint: 'f1', checks: 2 });
    expect(await store.countSamePlan('net', 'f2')).toBe(1);
    expect(await store.countSamePlan('net', 'f2')).toBe(2);
    expect(await tmp.open().countSamePlan('net', 'f2')).toBe(3);
    expect(await store.countSamePlan('net', undefined)).toBe(0);
    expect((await store.getStack('net'))?.samePlan).toBeUndefined();
    expect(await store.countSamePlan('net', 'f2')).toBe(1);
  });
});

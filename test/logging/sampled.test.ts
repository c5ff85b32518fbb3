import { describe, expect, it } from 'vitest';
import { sampledLog } from '../../src/logging/sampled.js';
import { manualClock } from '../adapters/store/temp-store.js';

describe('a sampled log line', () => {
  it('is written at once, then once per period saying how many went unsaid before it', () => {
    const clock = manualClock(0);
    const log = sampledLog(60_000, clock.now);
    const written: number[] = [];
    const say = () => log((unsaid) => written.push(unsaid));
    say();
    for (let i = 0; i < 500; i++) say();
    expect(written).toEqual([0]);
    clock.advance(60_000);
    say();
    say();
    expect(written).toEqual([0, 500]);
    clock.advance(59_999);
    say();
    expect(written).toEqual([0, 500]);
    clock.advance(1);
    say();
    expect(written).toEqual([0, 500, 2]);
  });
});

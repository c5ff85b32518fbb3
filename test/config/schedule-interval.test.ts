import { describe, expect, it } from 'vitest';
import { shortestIntervalMinutes } from '../../src/config/schedule-interval.js';

describe('shortestIntervalMinutes', () => {
  it.each([
    ['*/15 * * * *', 15],
    ['*/30 * * * *', 30],
    ['0 * * * *', 60],
    ['0 */2 * * *', 120],
    ['0,5 * * * *', 5],
    ['0 3 * * *', 1440],
    ['59 23 * * *', 1440],
    // Midnight counts: 23:50 and 00:10 are 20 minutes apart.
    ['10,50 0,23 * * *', 20],
    ['0 9 * * 1-5', 1440],
    ['*/10 * * * * *', 10 / 60],
  ])('%s -> %s', (expression, minutes) => {
    expect(shortestIntervalMinutes(expression)).toBeCloseTo(minutes, 6);
  });
});

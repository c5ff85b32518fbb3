import { describe, expect, it } from 'vitest';
import { validateConfigText } from '../../src/config/load.js';

async function issuesOf(stack: string): Promise<string[]> {
  const result = await validateConfigText(`version: 1\nstacks:\n  - name: prod/net\n    dir: net\n${stack}`, {
    baseDir: '/nonexistent-base',
    env: {},
  });
  return result.issues.map((i) => `${i.path}: ${i.message}`);
}

describe('validate refuses aggressive auto-apply of production', () => {
  it.each([
    // prod by environment, every 15 minutes: refused
    [
      '    environment: prod\n    mode: auto-apply\n    schedule: "*/15 * * * *"',
      /stacks\[0\]\.mode: prod\/net is prod and mode auto-apply.*every 15 minutes/,
    ],
    // prod by label, every minute
    ['    labels: [critical, prod]\n    mode: auto-apply\n    schedule: "* * * * *"', /runs every minute:/],
  ])('%s', async (stack, want) => {
    const issues = await issuesOf(stack);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(want);
  });

  it.each([
    ['every 30 minutes is allowed', '    environment: prod\n    mode: auto-apply\n    schedule: "*/30 * * * *"'],
    [
      'an explicit override is allowed',
      '    environment: prod\n    mode: auto-apply\n    schedule: "*/5 * * * *"\n    allowFrequentAutoApply: true',
    ],
    ['auto-minor is not auto-apply', '    environment: prod\n    mode: auto-minor\n    schedule: "*/5 * * * *"'],
    ['staging may reconcile often', '    environment: staging\n    mode: auto-apply\n    schedule: "*/5 * * * *"'],
  ])('%s', async (_name, stack) => {
    expect(await issuesOf(stack)).toEqual([]);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { formatReport, runSoak } from './soak.js';

/**
 * The soak's short version, in every `npm test`: two and a half minutes of faults on the two-replica world (about 3 minutes in all)
 * (`npm run soak -- --minutes N` runs it longer). The seed is random, printed with any violation, and
 * DRIFTGATE_SOAK_SEED runs one again.
 */
describe.skipIf(!HAS_BUILD)(`soak (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('keeps every promise through kills, a Postgres restart and Slack and PagerDuty failing', async () => {
    const seed = Number(process.env.DRIFTGATE_SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const dir = await mkdtemp(join(tmpdir(), `driftgate-soak-${seed}-`));
    const report = await runSoak({
      seed,
      faultsForMs: 150_000,
      faultGapMs: [2_000, 5_000],
      settleMs: 75_000,
      dir,
    });
    // Something was injected, or the soak proved nothing (how many depends on the seed and on how soon the
    // killed processes are up again: a fault waits for them).
    const injected = Object.values(report.faults).reduce((a, b) => a + b, 0);
    expect(injected, formatReport(report)).toBeGreaterThanOrEqual(2);
    expect(report.violations, formatReport(report)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  }, 330_000);
});

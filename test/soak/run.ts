/**
 * `npm run soak -- --minutes N [--seed S] [--dir D]`: the fault-injection soak (see docs/contributing.md).
 * Prints the counts and every violation; exits 1 on any violation, keeping the history in the printed dir.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReport, runSoak } from './soak.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string' },
    dir: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isFinite(minutes) || minutes <= 0 || !Number.isInteger(seed)) {
  process.stderr.write('usage: npm run soak -- --minutes N [--seed S] [--dir D]  (N > 0, S an integer)\n');
  process.exit(2);
}
const dir = values.dir ?? (await mkdtemp(join(tmpdir(), `driftgate-soak-${seed}-`)));
const report = await runSoak({
  seed,
  faultsForMs: minutes * 60_000,
  dir,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`${formatReport(report)}\n`);
process.exit(report.violations.length > 0 ? 1 : 0);

import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Run } from '../../domain/run/model.js';
import type { RunStore } from '../../ports/store.js';

/** The scratch dir of a run's apply; it outlives a crash, and is removed once the apply is over. */
export const applyDir = (workDir: string, runId: string): string => join(workDir, `${runId}-apply`);
const marker = (workDir: string, runId: string) => join(applyDir(workDir, runId), 'handed-to-terraform');

/** Written and synced to disk just before terraform apply starts: evidence that survives a lost `applying`. */
export async function markApplyHanded(workDir: string, runId: string): Promise<void> {
  const file = await open(marker(workDir, runId), 'w', 0o600);
  try {
    await file.sync();
  } finally {
    await file.close();
  }
  const dir = await open(applyDir(workDir, runId), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * At start: a run that reads `approved` although its apply was handed to terraform (the store lost
 * `applying`) is interrupted and its stack blocked, never applied a second time. Returns those runs.
 */
export async function interruptHandedApplies(deps: { store: RunStore; workDir: string }): Promise<Run[]> {
  const interrupted: Run[] = [];
  for (const run of await deps.store.listRuns({ states: ['approved'] })) {
    if (!existsSync(marker(deps.workDir, run.id))) continue;
    const ended = await deps.store.transition(run.id, 'approved', 'interrupted', {
      error: 'driftgate stopped after the apply was handed to terraform; the run did not finish',
    });
    if (!ended) continue;
    await deps.store.blockStack(
      run.stack,
      `apply of run ${run.id} was interrupted: the real infrastructure may be half applied; check its state before unblocking`,
    );
    interrupted.push(ended);
  }
  return interrupted;
}

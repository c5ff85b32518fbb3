import { createArtifactStore } from '../../adapters/artifacts/create-artifact-store.js';
import { openStore } from '../../adapters/store/open-store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { DeadOutboxItem } from '../../ports/slack-store.js';
import type { Stack } from '../../domain/stack.js';
import { readStackStatus, type StackState } from '../../services/status/stack-status.js';
import { loadPolicy } from '../../services/check/stored-analysis.js';

export type { StackState } from '../../services/status/stack-status.js';

export interface StatusReading {
  states: StackState[];
  /** What the outbox could never deliver (a message Slack refused, a page PagerDuty answered 400): the newest. */
  dead: { total: number; items: DeadOutboxItem[] };
  /** One moment for every age on the page. */
  now: Date;
}

/**
 * `driftgate status`: where each stack stands, as `/drift status` and the App Home see it, read from the
 * store alone (no plan, no terraform), with the details a terminal wants: approvals and policies.
 */
export async function readStatus(
  config: Pick<DriftgateConfig, 'dataDir' | 'store' | 'artifacts' | 'defaults' | 'approvers'>,
  stacks: readonly Stack[],
  options: { env: Record<string, string | undefined>; deadShown: number },
): Promise<StatusReading> {
  const store = await openStore(config);
  try {
    const artifacts = await createArtifactStore(config.artifacts, { dataDir: config.dataDir, env: options.env });
    const now = new Date();
    const states = await readStackStatus(store, stacks, {
      now,
      notConvergingAfter: config.defaults.notConvergingAfter,
      details: { approvers: config.approvers, policyOf: (run) => loadPolicy({ store, artifacts }, run.id) },
    });
    return { states, dead: await store.listDead(options.deadShown), now };
  } finally {
    await store.close();
  }
}

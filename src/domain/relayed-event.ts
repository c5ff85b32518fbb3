import { z } from 'zod';
import type { DomainEvent } from './events.js';

const VERIFICATIONS = ['clean', 'still_drifting', 'failed'] as const;
const base = { stack: z.string().min(1), runId: z.string().min(1) };
const actor = z.string().min(1);

/**
 * A domain event as it travels from a worker to the control plane, through the queue in Postgres. The run
 * goes by id (the store has it), the analysis and policy stay in the artifact store (they can be large):
 * what travels is the event's own fields, checked on arrival (another version may have sent it).
 */
export const RelayedEvent = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['drift_detected', 'plan_pending_approval']), ...base }),
  z.object({ type: z.literal('no_changes'), ...base }),
  z.object({
    type: z.literal('plan_refreshed'),
    ...base,
    previousRunId: z.string().optional(),
    notConverging: z.number().int().optional(),
  }),
  z.object({ type: z.literal('drift_resolved'), ...base, previousFingerprint: z.string(), previousRunId: z.string() }),
  z.object({ type: z.literal('plan_failed'), ...base, error: z.string(), stderrTail: z.string() }),
  z.object({ type: z.literal('apply_queued'), ...base, actor }),
  z.object({
    type: z.literal('applied'),
    ...base,
    actor,
    durationMs: z.number(),
    output: z.string(),
    verification: z.enum(VERIFICATIONS),
  }),
  z.object({
    type: z.literal('apply_failed'),
    ...base,
    actor,
    durationMs: z.number(),
    error: z.string(),
    output: z.string(),
    verification: z.enum(VERIFICATIONS),
  }),
  z.object({ type: z.literal('apply_not_started'), ...base, actor, reason: z.string(), blocked: z.boolean() }),
  z.object({ type: z.literal('apply_interrupted'), ...base, startedBy: z.string() }),
  z.object({ type: z.literal('plan_expired'), ...base, stale: z.boolean(), credentials: z.boolean().optional() }),
]);
export type RelayedEvent = z.infer<typeof RelayedEvent>;

/** What of `event` travels: everything but the run (by id), its analysis and its policy. */
export function relayedEvent(event: DomainEvent): RelayedEvent {
  const { run, ...fields } = event;
  const rest: Record<string, unknown> = { ...fields };
  delete rest.analysis;
  delete rest.policy;
  return RelayedEvent.parse({ ...rest, runId: run.id });
}

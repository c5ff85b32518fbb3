import type { Stack } from '../../domain/stack.js';
import type { SlackStore } from '../../ports/slack-store.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { type OperatorRefusal, operatorRefusal, type RightsDeps } from './rights.js';

/** A reason is kept in the store and shown to others: as long as a reject reason, and redacted like one. */
const MAX_REASON = 500;
/** A silence is for a migration or an incident, not a way to switch a detector off for good. */
export const MAX_SILENCE_MS = 30 * 86_400_000;

export type SilenceDeps = RightsDeps & {
  store: Pick<SlackStore, 'silence' | 'unsilence'>;
  secrets: Pick<ServiceDeps['secrets'], 'redact'>;
};

export type SilenceOutcome =
  | { status: 'silenced'; until: Date; durationMs: number }
  /** Longer than MAX_SILENCE_MS: nothing silenced. */
  | { status: 'too_long'; maxMs: number }
  | OperatorRefusal;

/**
 * `/drift silence`: no alerts for the stack until the time is up (checks still run and are recorded), audited
 * with who, until when and why. Silencing hides drift, so it takes someone who may approve the stack's plans.
 */
export async function silenceStack(
  deps: SilenceDeps,
  stack: Stack,
  userId: string,
  request: { durationMs: number; reason?: string },
): Promise<SilenceOutcome> {
  const refused = await operatorRefusal(deps, stack, userId, 'silence');
  if (refused) return refused;
  if (request.durationMs > MAX_SILENCE_MS) return { status: 'too_long', maxMs: MAX_SILENCE_MS };
  const now = deps.now();
  const until = new Date(now.getTime() + request.durationMs);
  const reason = request.reason ? deps.secrets.redact(request.reason, stack.name).slice(0, MAX_REASON) : undefined;
  await deps.store.silence({ stack: stack.name, until, by: userId, ...(reason ? { reason } : {}) });
  await deps.store.appendAudit({
    at: now,
    actor: userId,
    action: 'silenced',
    stack: stack.name,
    detail: { until: until.toISOString(), reason: reason ?? null },
  });
  return { status: 'silenced', until, durationMs: request.durationMs };
}

/** `/drift unsilence`: alerts again from the next check on; anyone may, and it is audited. */
export async function unsilenceStack(
  deps: Pick<SilenceDeps, 'store' | 'now'>,
  stack: string,
  userId: string,
): Promise<{ wasSilenced: boolean }> {
  const now = deps.now();
  const removed = await deps.store.unsilence(stack);
  const wasSilenced = removed !== undefined && removed.until > now;
  await deps.store.appendAudit({ at: now, actor: userId, action: 'unsilenced', stack, detail: { wasSilenced } });
  return { wasSilenced };
}

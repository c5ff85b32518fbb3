import { describeOpFailure, OpResults } from '../../domain/agent/op-messages.js';
import { ChangeEventError, type ChangeEvent, parseLookedUpEvent } from '../../domain/change-events/schema.js';
import { ExternalServiceError, failureReason } from '../../domain/errors.js';
import type { AgentOpRunner } from '../../ports/agent-ops.js';
import type { ChangeHistory, ChangeHistoryResult } from '../../ports/change-history.js';

/**
 * CloudTrail as a pool's workers see it, with `runners.agent`: each lookup a job on the stack's pool, so it
 * is asked with that pool's credentials in its region, and the control plane holds no cloud access. What a
 * worker sends back is read as a module could have written it: every event parsed, the rest unreadable.
 */
export function historyOnAgent(
  run: AgentOpRunner,
  target: { pool: string; stack: string },
  runMs: number,
): ChangeHistory {
  return {
    async changesTo(resourceName, since, options = {}): Promise<ChangeHistoryResult> {
      const op = await run(
        'cloudtrail',
        target,
        { resourceName, since: since.toISOString() },
        { runMs, attempts: 2, ...(options.signal ? { signal: options.signal } : {}) },
      );
      try {
        const result = OpResults.cloudtrail.parse(op.result);
        if (!result.ok)
          throw new ExternalServiceError(
            'CloudTrail',
            `pool ${target.pool}'s worker could not ask it: ${describeOpFailure(result.failure)}`,
            true,
          );
        const events: ChangeEvent[] = [];
        const unreadable = [...result.unreadable];
        for (const raw of result.events) {
          try {
            events.push(parseLookedUpEvent(raw));
          } catch (err) {
            if (!(err instanceof ChangeEventError)) throw err;
            unreadable.push({ reason: failureReason(err).slice(0, 500) });
          }
        }
        return { events, unreadable, truncated: result.truncated };
      } finally {
        await op.done();
      }
    },
  };
}

/**
 * What happens once a run has all its approvals: the apply goes through the scheduler (so it never runs
 * beside a check of the same stack), and the run's message follows it: "Applying…", then "Applied in
 * 34 s, verified: no drift" or "Apply failed: see thread", with terraform's masked output in the thread.
 * An apply that cannot start (too old, stack blocked or locked) ends the run with the reason and a next
 * step, never leaving it approved with nothing happening.
 */
import type { Stack } from '../../domain/stack.js';
import type { Run } from '../../domain/run/model.js';
import type { ApplyOutcome } from '../../services/apply-run.js';
import { applyRunFromSource } from '../../services/apply-run-from-source.js';
import type { CheckOutcome } from '../../services/check-stack.js';
import type { ServiceDeps } from '../../services/deps.js';
import type { SourceDeps } from '../../services/resolve-stack-at-commit.js';
import type { Scheduler } from '../../services/scheduler.js';
import { renderApplyOutput } from '../blocks/render-apply-output.js';
import { section } from '../blocks/message.js';
import { escapeMrkdwn } from '../blocks/escape.js';
import type { Verification } from '../blocks/run-phase.js';
import type { RunMessages } from '../notifier/run-messages.js';

export interface RunApplier {
  /** Applies an `approved` run; `actor` is who completed the approvals (audit). */
  apply(run: Run, actor: string): Promise<ApplyOutcome | undefined>;
}

export interface RunApplierDeps {
  /** With `git` for stacks that come from Git: the apply runs in a checkout of the run's commit. */
  services: ServiceDeps & Partial<SourceDeps>;
  scheduler: Pick<Scheduler<CheckOutcome>, 'exclusive' | 'request'>;
  messages: RunMessages;
  stack(name: string): Stack | undefined;
}

function verificationOf(outcome: CheckOutcome): Verification {
  if (outcome.status === 'no_changes') return 'clean';
  if (outcome.status === 'drifted' || outcome.status === 'pending_approval') return 'still_drifting';
  return 'failed';
}

export function createRunApplier(deps: RunApplierDeps): RunApplier {
  const { messages, services } = deps;
  return {
    async apply(run, actor) {
      const stack = deps.stack(run.stack);
      if (!stack) return undefined;
      await messages.ensurePosted(run);
      await messages.update(run, { kind: 'applying', by: actor });
      const started = performance.now();
      const outcome = await deps.scheduler.exclusive(stack.name, () => applyRunFromSource(services, stack, run.id, actor));
      const durationMs = performance.now() - started;

      if (outcome.status === 'applied') {
        const verification = verificationOf(outcome.verification);
        await messages.update(outcome.run, { kind: 'applied', durationMs, verification });
        messages.reply(outcome.run, renderApplyOutput({ ok: true, output: outcome.output, durationMs }));
        return outcome;
      }
      if (outcome.status === 'apply_failed') {
        await messages.update(outcome.run, { kind: 'apply_failed' });
        messages.reply(outcome.run, renderApplyOutput({ ok: false, output: `${outcome.error}\n\n${outcome.output}`.trim(), durationMs }));
        return outcome;
      }

      // Nothing was applied. Another path already applies or applied this run: its message is that path's.
      if (outcome.code === 'not_applyable' || outcome.code === 'not_found') return outcome;
      // Expired or stale: the service marked the run; a fresh plan gets its own message.
      const current = services.store.getRun(run.id) ?? run;
      if (outcome.code === 'expired' || outcome.code === 'stale') {
        await messages.update(current, { kind: 'expired', ...(outcome.code === 'stale' ? { stale: true } : {}) });
        void deps.scheduler.request(stack.name, 'manual').catch(() => undefined);
        return outcome;
      }
      const ended = services.store.transition(run.id, 'approved', 'errored', { error: `apply did not start: ${outcome.reason}` }) ?? current;
      services.store.appendAudit({ at: services.now(), actor, action: 'apply_not_started', runId: run.id, stack: stack.name, detail: { reason: outcome.reason } });
      await messages.update(ended, { kind: 'apply_failed' });
      const next = outcome.code === 'blocked' ? 'Check the stack, run `/drift unlock` and then `/drift check`.' : 'Run `/drift check` for a new plan once the stack is free.';
      messages.reply(ended, { text: `Apply did not start: ${outcome.reason}`, blocks: [section(`:x: Apply did not start: ${escapeMrkdwn(outcome.reason)}\n${next}`)] });
      return outcome;
    },
  };
}

/**
 * Drift that nobody resolved within `slack.onCall.escalateAfter` is raised again: a reply on its alert,
 * also sent to the channel, mentioning the on-call group. Once per drift (fingerprint), and never for a
 * silenced stack or a rejected (snoozed) drift.
 */
import type { Store } from '../../ports/store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import { escapeMrkdwn, safeMention } from '../blocks/escape.js';
import { formatDuration, section, slackDate } from '../blocks/message.js';
import { onCallMention } from '../routing.js';
import type { RunMessages } from './run-messages.js';

export interface EscalateDeps {
  config: Pick<DriftgateConfig, 'slack'>;
  store: Store;
  messages: RunMessages;
  stack(name: string): Stack | undefined;
  now: () => Date;
}

/** Raises every drift due; returns how many. */
export async function escalateStaleDrift(deps: EscalateDeps): Promise<number> {
  const slack = deps.config.slack;
  const after = slack?.onCall?.escalateAfter;
  if (!slack || !after) return 0;
  const now = deps.now();
  let raised = 0;
  for (const record of await deps.store.listStacks()) {
    const drift = record.openDrift;
    const stack = deps.stack(record.name);
    const mention = stack && onCallMention(slack, stack);
    if (!drift || !stack || !mention) continue;
    const age = now.getTime() - drift.firstSeenAt.getTime();
    if (age < after) continue;
    if (
      (await deps.store.getSilence(stack.name, now)) ||
      (await deps.store.isSnoozed(stack.name, drift.fingerprint, now))
    )
      continue;
    const done = (await deps.store.listAudit({ stack: stack.name, limit: 200 })).some(
      (a) => a.action === 'drift_escalated' && a.detail?.fingerprint === drift.fingerprint,
    );
    const run = await deps.store.getRun(drift.runId);
    if (done || !run) continue;
    const text = `Drift in ${stack.name} unresolved for ${formatDuration(age)}`;
    const line = `${safeMention(mention) ?? ''} :rotating_light: *${escapeMrkdwn(text)}* (first seen ${slackDate(drift.firstSeenAt)}): ${formatCounts(drift.counts)}. Approve or reject it on the alert, or \`/drift silence ${escapeMrkdwn(stack.name)} <duration> <reason>\`.`;
    await deps.messages.reply(run, { text, blocks: [section(line.trim())] }, { broadcast: true });
    await deps.store.appendAudit({
      at: now,
      actor: 'system',
      action: 'drift_escalated',
      runId: run.id,
      stack: stack.name,
      detail: { fingerprint: drift.fingerprint, ageMs: age },
    });
    raised += 1;
  }
  return raised;
}

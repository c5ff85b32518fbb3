/**
 * Drift that nobody resolved within `slack.onCall.escalateAfter` is raised again: a reply on its alert,
 * also sent to the channel, mentioning the on-call group. Which drift is due, and the audit that makes it
 * once per drift, are services/notify/escalation's.
 */
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { Store } from '../../ports/store.js';
import { dueEscalations, recordEscalation } from '../../services/notify/escalation.js';
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
  const due = await dueEscalations(deps, after, (stack) => onCallMention(slack, stack));
  for (const item of due) {
    const { stack, drift } = item;
    const text = `Drift in ${stack.name} unresolved for ${formatDuration(item.ageMs)}`;
    const line = `${safeMention(item.mention) ?? ''} :rotating_light: *${escapeMrkdwn(text)}* (first seen ${slackDate(drift.firstSeenAt)}): ${formatCounts(drift.counts)}. Approve or reject it on the alert, or \`/drift silence ${escapeMrkdwn(stack.name)} <duration> <reason>\`.`;
    await deps.messages.reply(item.run, { text, blocks: [section(line.trim())] }, { broadcast: true });
    await recordEscalation(deps, item);
  }
  return due.length;
}

import { formatDuration } from '../../blocks/message.js';
import { renderAck, renderCommandError } from '../../blocks/render-command-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval-deps.js';
import type { SlackDeps } from '../deps.js';
import type { CommandHandler } from './handler.js';
import { mayActOn } from './stack-rights.js';

/** A reason is kept in the store and shown to others: as long as a reject reason, and redacted like one. */
const MAX_REASON = 500;
/** A silence is for a migration or an incident, not a way to switch a detector off for good. */
const MAX_SILENCE_MS = 30 * 86_400_000;

/** `2025-03-01 14:00 UTC`: the ack is escaped plain text, so Slack's date token cannot be used here. */
function utc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * `/drift silence`: no alerts for the stack until the time is up (checks still run and are recorded).
 * Silencing hides drift, so it takes someone who may approve the stack's plans; unsilencing anyone may.
 */
export const handleSilence: CommandHandler<'silence', ApprovalServiceDeps & Pick<SlackDeps, 'stack'>> = async (
  deps,
  command,
  userId,
  tell,
) => {
  const stack = deps.stack(command.stack);
  if (!stack || !(await mayActOn(deps, stack, userId, 'silence', tell))) return;
  if (command.durationMs > MAX_SILENCE_MS) {
    return tell(
      renderCommandError(
        `a silence lasts at most 30 days; for longer, change the code or the config so that the drift stops alerting for a stated reason`,
      ),
    );
  }
  const now = deps.now();
  const until = new Date(now.getTime() + command.durationMs);
  const reason = command.reason ? deps.secrets.redact(command.reason, command.stack).slice(0, MAX_REASON) : undefined;
  await deps.store.silence({ stack: command.stack, until, by: userId, ...(reason ? { reason } : {}) });
  await deps.store.appendAudit({
    at: now,
    actor: userId,
    action: 'silenced',
    stack: command.stack,
    detail: { until: until.toISOString(), reason: reason ?? null },
  });
  await tell(
    renderAck(
      `${command.stack} is silenced for ${formatDuration(command.durationMs)}, until ${utc(until)}: no alerts until then.`,
    ),
  );
};

/** `/drift unsilence`: alerts again from the next check on. */
export const handleUnsilence: CommandHandler<'unsilence', ApprovalServiceDeps & Pick<SlackDeps, 'stack'>> = async (
  deps,
  command,
  userId,
  tell,
) => {
  const now = deps.now();
  const removed = await deps.store.unsilence(command.stack);
  const wasSilenced = removed !== undefined && removed.until > now;
  await deps.store.appendAudit({
    at: now,
    actor: userId,
    action: 'unsilenced',
    stack: command.stack,
    detail: { wasSilenced },
  });
  await tell(
    renderAck(
      wasSilenced ? `${command.stack} alerts again.` : `${command.stack} was not silenced; it alerts as before.`,
    ),
  );
};

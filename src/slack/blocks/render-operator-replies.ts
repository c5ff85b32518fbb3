/** The answers to `/drift unlock`, `silence` and `unsilence` (and a refused remediation): from their outcomes. */
import type { OperatorAct, OperatorRefusal } from '../../services/operator/rights.js';
import type { SilenceOutcome } from '../../services/operator/silence.js';
import type { Unlocked } from '../../services/operator/unlock.js';
import { formatDuration, type SlackMessage } from './message.js';
import { renderAck, renderCommandError, renderNotAllowed } from './render-command-replies.js';

const GERUND: Record<OperatorAct, string> = {
  unlock: 'Unlocking',
  silence: 'Silencing',
  remediate: 'Opening a remediation PR for',
};

export function renderOperatorRefusal(stack: string, refusal: OperatorRefusal): SlackMessage {
  return renderNotAllowed(
    refusal.notApprover
      ? `${GERUND[refusal.act]} ${stack} takes someone who may approve its plans. ${refusal.message}`
      : refusal.message,
  );
}

export function renderUnlocked(stack: string, { blockedReason, brokenLock }: Unlocked): SlackMessage {
  const done = [
    blockedReason ? `lifted the block (${blockedReason})` : '',
    brokenLock ? `broke the lock of run ${brokenLock.runId}` : '',
  ].filter(Boolean);
  return renderAck(
    done.length
      ? `${stack}: ${done.join(' and ')}. The next check plans it again.`
      : `${stack} was neither blocked nor locked; nothing to do.`,
  );
}

/** `2025-03-01 14:00 UTC`: the ack is escaped plain text, so Slack's date token cannot be used here. */
function utc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function renderSilenced(stack: string, outcome: SilenceOutcome): SlackMessage {
  switch (outcome.status) {
    case 'refused':
      return renderOperatorRefusal(stack, outcome);
    case 'too_long':
      return renderCommandError(
        `a silence lasts at most ${outcome.maxMs / 86_400_000} days; for longer, change the code or the config so that the drift stops alerting for a stated reason`,
      );
    case 'silenced':
      return renderAck(
        `${stack} is silenced for ${formatDuration(outcome.durationMs)}, until ${utc(outcome.until)}: no alerts until then.`,
      );
  }
}

export function renderUnsilenced(stack: string, wasSilenced: boolean): SlackMessage {
  return renderAck(wasSilenced ? `${stack} alerts again.` : `${stack} was not silenced; it alerts as before.`);
}

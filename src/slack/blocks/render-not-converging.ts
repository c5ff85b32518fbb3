import type { ActionCounts } from '../../domain/plan/model.js';
import { escapeMrkdwn } from './escape.js';
import { plural, section, type SlackMessage } from './message.js';

/**
 * Said once when a stack has planned the same changes for `checks` checks in a row: a perpetual diff
 * (a provider quirk, code that does not say what the provider keeps, or drift another system owns).
 */
export function renderNotConverging(input: { stack: string; counts: ActionCounts; checks: number }): SlackMessage {
  const changes = Object.values(input.counts).reduce((n, c) => n + c, 0);
  const text = `${input.stack} has shown the same ${plural(changes, 'change')} for ${input.checks} checks: a provider quirk, code to fix, or an \`ignore\` rule to add.`;
  return {
    text,
    blocks: [
      section(
        `:repeat: *${escapeMrkdwn(input.stack)} is not converging*: the same ${plural(changes, 'change')} for ${input.checks} checks in a row. A provider quirk, code to fix, or an \`ignore\` rule to add. driftgate will not raise it again until the plan changes.`,
      ),
    ],
  };
}

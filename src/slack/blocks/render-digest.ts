/**
 * One message for an alert storm (many stacks drifting in one sweep, as after a provider upgrade):
 * a line per stack with its counts and a button that posts that stack's own interactive message in the
 * digest's thread, instead of flooding the channel with one alert per stack.
 */
import type { KnownBlock } from '@slack/types';
import type { ActionCounts } from '../../domain/plan/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { Run } from '../../domain/run/model.js';
import { ACTION_IDS } from '../action-ids.js';
import { LIMITS } from '../limits.js';
import { escapeMrkdwn } from './escape.js';
import { button, context, header, plural, section, stackLabel, type SlackMessage } from './message.js';

export interface DigestEntry {
  stack: string;
  environment?: string;
  run: Run;
  counts: ActionCounts;
}

/** Header, context and the "+N more" line. */
const FIXED_BLOCKS = 3;

export function renderDigest(input: { entries: DigestEntry[] }): SlackMessage {
  const { entries } = input;
  const destroying = entries.filter((e) => e.counts.delete + e.counts.replace > 0).length;
  // Stacks that would lose resources first: they are the ones to open.
  const sorted = [...entries].sort(
    (a, b) =>
      b.counts.delete + b.counts.replace - (a.counts.delete + a.counts.replace) || a.stack.localeCompare(b.stack),
  );
  const room = LIMITS.messageBlocks - FIXED_BLOCKS;
  const shown = sorted.length > room ? sorted.slice(0, room - 1) : sorted;
  const blocks: KnownBlock[] = [
    header(`Drift in ${plural(entries.length, 'stack')}`),
    context([
      'Many stacks drifted in one check, so they are listed here instead of one alert each. Open a stack to review, approve or reject it in the thread.',
      destroying ? `:warning: ${plural(destroying, 'stack')} would destroy or replace resources.` : '',
    ]),
  ];
  for (const entry of shown) {
    blocks.push(
      section(`${stackLabel({ name: entry.stack, environment: entry.environment })} · ${formatCounts(entry.counts)}`, {
        accessory: button('Open', ACTION_IDS.openStack, entry.run.id),
      }),
    );
  }
  const hidden = entries.length - shown.length;
  if (hidden > 0) {
    const names = sorted.slice(shown.length).map((e) => `${escapeMrkdwn(e.stack)} (${formatCounts(e.counts)})`);
    blocks.push(
      section(
        `+${hidden} more stack${hidden === 1 ? '' : 's'}, see \`/drift show &lt;stack&gt;\`: ${names.join(', ')}`,
      ),
    );
  }
  return { text: `Drift detected in ${plural(entries.length, 'stack')}`, blocks };
}

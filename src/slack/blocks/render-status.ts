/** `/drift status`: every stack with its state, last check, drift counts and pending approvals (ephemeral). */
import type { KnownBlock } from '@slack/types';
import { LIMITS } from '../limits.js';
import { context, header, plural, section, type SlackMessage } from './message.js';
import { statusBlocks, type StackStatusRow } from './status-blocks.js';

/** `hidden`: stacks left out because the person may not read them (slack.visibility). */
export function renderStatus(rows: readonly StackStatusRow[], hidden = 0): SlackMessage {
  const count = (status: StackStatusRow['status']) => rows.filter((r) => r.status === status).length;
  const problems = rows.length - count('in_sync');
  const summary = `${plural(rows.length, 'stack')}: ${count('in_sync')} in sync, ${count('drifted')} drifted, ${count('pending_approval')} waiting for approval, ${count('errored')} failed, ${count('blocked')} blocked`;
  const hiddenLine = hidden
    ? `${plural(hidden, 'stack')} not shown: you see the stacks whose alert channel you are in or that you may approve.`
    : undefined;
  if (rows.length === 0) {
    if (hiddenLine) return { text: hiddenLine, blocks: [section(hiddenLine)] };
    return {
      text: 'No stacks configured',
      blocks: [section('No stacks are configured. Add them under `stacks:` in driftgate.yml.')],
    };
  }
  const blocks: KnownBlock[] = [
    header(problems ? 'Stacks needing attention' : 'All stacks in sync'),
    context(hiddenLine ? [summary, hiddenLine] : [summary]),
  ];
  blocks.push(...statusBlocks(rows, { maxBlocks: LIMITS.messageBlocks - blocks.length, maxLinesPerGroup: 60 }));
  return { text: summary, blocks };
}

/** `/drift status`: every stack with its state, last check, drift counts and pending approvals (ephemeral). */
import type { KnownBlock } from '@slack/types';
import { LIMITS } from '../limits.js';
import { context, divider, header, plural, section, type SlackMessage } from './message.js';
import { poolBlocks, type PoolsAt } from './render-pools.js';
import { statusBlocks, type StackStatusRow } from './status-blocks.js';

const POOL_BLOCKS = 4;

/**
 * `hidden`: stacks left out because the person may not read them (slack.visibility). `pools`: the worker
 * pools, below the stacks (runners: workers only).
 */
export function renderStatus(rows: readonly StackStatusRow[], hidden = 0, pools?: PoolsAt): SlackMessage {
  const poolPart: KnownBlock[] = pools ? [divider, ...poolBlocks(pools, POOL_BLOCKS)] : [];
  const count = (status: StackStatusRow['status']) => rows.filter((r) => r.status === status).length;
  const problems = rows.length - count('in_sync');
  const summary = `${plural(rows.length, 'stack')}: ${count('in_sync')} in sync, ${count('drifted')} drifted, ${count('pending_approval')} waiting for approval, ${count('errored')} failed, ${count('blocked')} blocked`;
  const hiddenLine = hidden
    ? `${plural(hidden, 'stack')} not shown: you see the stacks whose alert channel you are in or that you may approve.`
    : undefined;
  if (rows.length === 0) {
    if (hiddenLine) return { text: hiddenLine, blocks: [section(hiddenLine), ...poolPart] };
    return {
      text: 'No stacks configured',
      blocks: [section('No stacks are configured. Add them under `stacks:` in driftgate.yml.'), ...poolPart],
    };
  }
  const blocks: KnownBlock[] = [
    header(problems ? 'Stacks needing attention' : 'All stacks in sync'),
    context(hiddenLine ? [summary, hiddenLine] : [summary]),
  ];
  const room = LIMITS.messageBlocks - blocks.length - poolPart.length;
  blocks.push(...statusBlocks(rows, { maxBlocks: room, maxLinesPerGroup: 60 }), ...poolPart);
  return { text: summary, blocks };
}

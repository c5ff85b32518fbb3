/**
 * The App Home tab: pending approvals first (with their buttons, the same as on the run message), then
 * every stack by state, the worker pools, the last day's changes to resources no stack manages, then
 * recent activity from the audit log. At most 100 blocks, Slack's view limit.
 */
import type { HomeView, KnownBlock } from '@slack/types';
import type { ApprovalProgress } from '../../domain/approvals/model.js';
import type { ActionCounts } from '../../domain/plan/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { AuditEntry, Run } from '../../domain/run/model.js';
import { ACTION_IDS, BLOCK_IDS } from '../action-ids.js';
import { LIMITS } from '../limits.js';
import { code, escapeMrkdwn, truncate, userRef } from './escape.js';
import { actions, button, context, divider, header, section, slackDate, stackLabel, type StackRef } from './message.js';
import { poolBlocks, type PoolsAt } from './render-pools.js';
import { type RecentUnmatched, recentUnmatchedBlocks } from './render-recent-unmatched.js';
import { runButtons } from './run-buttons.js';
import { statusBlocks, type StackStatusRow } from './status-blocks.js';

export interface PendingApprovalItem {
  stack: StackRef;
  run: Run;
  progress?: ApprovalProgress;
  /** False for an errored plan: no Approve button. Defaults to true. */
  applyable?: boolean;
}

export interface HomeInput {
  stacks: readonly StackStatusRow[];
  pending: readonly PendingApprovalItem[];
  activity: readonly AuditEntry[];
  /** When the view was built, shown as "Updated …". */
  now?: Date;
  /** Shown on top: the answer to the user's last click on this tab (plain text, escaped here). */
  notice?: string;
  /** The worker pools, below the stacks (runners: workers only). */
  pools?: PoolsAt;
  /** Changes to resources no stack manages (change events on, and a viewer who may list them). */
  unmatched?: RecentUnmatched;
}

const MAX_PENDING = 15;
const ACTIVITY_BLOCKS = 2;
const POOL_BLOCKS = 4;
const NO_COUNTS: ActionCounts = { create: 0, update: 0, delete: 0, replace: 0, read: 0 };

function pendingBlocks(pending: readonly PendingApprovalItem[]): KnownBlock[] {
  const blocks: KnownBlock[] = [header(`Waiting for approval (${pending.length})`)];
  if (pending.length === 0) blocks.push(section('Nothing is waiting for approval.'));
  for (const item of pending.slice(0, MAX_PENDING)) {
    const counts = item.run.counts ?? NO_COUNTS;
    const progress = item.progress ? ` · approved ${item.progress.have}/${item.progress.need}` : '';
    blocks.push(
      section(
        `${stackLabel(item.stack)} · *${formatCounts(counts)}*${progress} · planned ${slackDate(item.run.createdAt)} · run ${code(item.run.id)}`,
      ),
    );
    const buttons = runButtons({
      runId: item.run.id,
      stackName: item.stack.name,
      counts,
      applyable: item.applyable ?? true,
      canRemediate: false,
    });
    blocks.push(actions(buttons));
  }
  if (pending.length > MAX_PENDING)
    blocks.push(section(`+${pending.length - MAX_PENDING} more waiting: see the stacks' channels`));
  return blocks;
}

function activityLine(entry: AuditEntry): string {
  const what = [entry.stack ? code(truncate(entry.stack, 100)) : '', entry.runId ? `run ${code(entry.runId)}` : '']
    .filter(Boolean)
    .join(' ');
  return `• ${slackDate(entry.at)} ${userRef(entry.actor)} ${escapeMrkdwn(truncate(entry.action, 80))}${what ? ` ${what}` : ''}`;
}

function activityBlocks(activity: readonly AuditEntry[]): KnownBlock[] {
  const texts: string[] = [''];
  for (const entry of activity.slice(0, 40)) {
    const line = activityLine(entry);
    const last = texts.length - 1;
    if (texts[last]!.length + line.length + 1 <= LIMITS.sectionText) texts[last] += `${texts[last] ? '\n' : ''}${line}`;
    else if (texts.length < ACTIVITY_BLOCKS) texts.push(line);
    else break;
  }
  const [first = '', ...rest] = texts;
  return [header('Recent activity'), section(first || 'No activity yet.'), ...rest.map((t) => section(t))];
}

export function renderHome(input: HomeInput): HomeView {
  const top: KnownBlock[] = [
    header('driftgate'),
    ...(input.now ? [context([`Updated ${slackDate(input.now)}`])] : []),
    ...(input.notice ? [section(`:information_source: ${escapeMrkdwn(truncate(input.notice, 2000))}`)] : []),
    actions([button('Refresh', ACTION_IDS.refreshHome, 'home')], BLOCK_IDS.homeActions),
    divider,
    ...pendingBlocks(input.pending),
    divider,
    header('Stacks'),
  ];
  const pools = input.pools ? [divider, ...poolBlocks(input.pools, POOL_BLOCKS)] : [];
  const unmatched = input.unmatched ? [divider, ...recentUnmatchedBlocks(input.unmatched)] : [];
  const bottom = [...pools, ...unmatched, divider, ...activityBlocks(input.activity)];
  const room = LIMITS.viewBlocks - top.length - bottom.length;
  const stacks = input.stacks.length
    ? statusBlocks(input.stacks, { maxBlocks: room, maxLinesPerGroup: 40 })
    : [section('No stacks configured.')];
  return { type: 'home', blocks: [...top, ...stacks, ...bottom] };
}

/**
 * Stacks grouped by state, worst first, for `/drift status` and the App Home. A long list is cut per
 * group with "… and N more", so two hundred stacks in sync never push a blocked one out of view.
 */
import type { SectionBlock } from '@slack/types';
import type { ActionCounts } from '../../domain/plan/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { StackStatus } from '../../domain/run/model.js';
import { LIMITS } from '../limits.js';
import { escapeMrkdwn, truncate } from './escape.js';
import { plural, section, slackDate, stackLabel } from './message.js';

export interface StackStatusRow {
  name: string;
  environment?: string;
  status: StackStatus;
  lastCheckAt?: Date;
  /** Counts of the open drift or pending change. */
  counts?: ActionCounts;
  /** Runs of this stack waiting for approval. */
  pendingApprovals?: number;
  silencedUntil?: Date;
  blockedReason?: string;
  /** Why the last plan failed, for a stack in `errored`. */
  error?: string;
  /** Checks in a row that planned these same changes, once that is `defaults.notConvergingAfter` or more. */
  notConverging?: number;
}

const GROUPS: { status: StackStatus; title: string }[] = [
  { status: 'blocked', title: ':no_entry: *Blocked* (an apply was interrupted; `/drift unlock` after checking)' },
  { status: 'errored', title: ':x: *Plan failed*' },
  { status: 'pending_approval', title: ':hourglass_flowing_sand: *Waiting for approval*' },
  { status: 'drifted', title: ':large_orange_circle: *Drifted*' },
  { status: 'unknown', title: ':grey_question: *Not checked yet*' },
  { status: 'in_sync', title: ':white_check_mark: *In sync*' },
];

function rowLine(row: StackStatusRow): string {
  const parts = [`• ${stackLabel(row)}`];
  if (row.counts) parts.push(formatCounts(row.counts));
  if (row.pendingApprovals) parts.push(plural(row.pendingApprovals, 'pending approval'));
  if (row.notConverging) parts.push(`:repeat: not converging (the same plan for ${row.notConverging} checks)`);
  parts.push(row.lastCheckAt ? `checked ${slackDate(row.lastCheckAt, '{date_short_pretty} {time}')}` : 'never checked');
  if (row.silencedUntil) parts.push(`:mute: silenced until ${slackDate(row.silencedUntil)}`);
  if (row.blockedReason) parts.push(`blocked: ${escapeMrkdwn(truncate(row.blockedReason, 200))}`);
  if (row.error) parts.push(escapeMrkdwn(truncate(row.error.split('\n')[0]!, 200)));
  return truncate(parts.join(' · '), 1000);
}

/** Sections for every group with stacks, within `maxBlocks`; every group gets at least its title. */
export function statusBlocks(
  rows: readonly StackStatusRow[],
  options: { maxBlocks: number; maxLinesPerGroup: number },
): SectionBlock[] {
  const groups = GROUPS.map((g) => ({
    ...g,
    rows: rows.filter((r) => r.status === g.status).sort((a, b) => a.name.localeCompare(b.name)),
  })).filter((g) => g.rows.length > 0);
  const blocks: SectionBlock[] = [];
  groups.forEach((group, i) => {
    // Leave one block for each group still to come.
    const room = options.maxBlocks - blocks.length - (groups.length - i - 1);
    if (room < 1) return;
    const texts = [`${group.title} (${group.rows.length})`];
    let shown = 0;
    for (const row of group.rows.slice(0, options.maxLinesPerGroup)) {
      const line = rowLine(row);
      const last = texts.length - 1;
      // 60 characters stay free for the "… and N more" line.
      if (texts[last]!.length + line.length + 61 <= LIMITS.sectionText) texts[last] += `\n${line}`;
      else if (texts.length < room) texts.push(line);
      else break;
      shown += 1;
    }
    const hidden = group.rows.length - shown;
    if (hidden > 0) texts[texts.length - 1] += `\n… and ${hidden} more`;
    blocks.push(...texts.map((t) => section(t)));
  });
  return blocks;
}

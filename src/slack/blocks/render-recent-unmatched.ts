/**
 * The App Home's short "Changes to resources no stack manages": how many in the last day and the newest
 * few, one line each, for someone who may list them all with `/drift events`. Every field of an event is
 * written by whoever made the call, so all of it is escaped; the only mentions are Slack user ids from
 * config.
 */
import type { KnownBlock } from '@slack/types';
import type { UnmatchedChange } from '../../domain/change-events/unmatched.js';
import { code, truncate } from './escape.js';
import { context, header, plural, section, slackDate } from './message.js';
import { who } from './render-change-attribution.js';
import { UNMATCHED_TITLE } from './render-unmatched-changes.js';

/** The last day's unmatched changes, or `unavailable` when the store could not be read. */
export type RecentUnmatchedView = { changes: readonly UnmatchedChange[]; counted: number } | 'unavailable';

export interface RecentUnmatched {
  view: RecentUnmatchedView;
  /** `changeEvents.slackUsers`: principal ARN, role ARN or name -> Slack user id. */
  slackUsers: Readonly<Record<string, string>>;
}

/** Lines on the Home; `/drift events` lists the rest. */
export const RECENT_UNMATCHED_SHOWN = 3;
/** The Home's window: the store counts per hour, so the count covers the hours that overlap it. */
export const RECENT_UNMATCHED_HOURS = 24;
const LINE_MAX = 600;

function recentLine(change: UnmatchedChange, slackUsers: Readonly<Record<string, string>>): string {
  const [first] = change.resources;
  const more = change.resources.length - 1;
  const resource = first ? ` ${code(truncate(first, 160))}${more > 0 ? ` and ${more} more` : ''}` : '';
  const line = `• ${slackDate(change.at)} ${who(change.principal, slackUsers)}: ${code(truncate(change.eventName, 100))}${resource}`;
  return line.length <= LINE_MAX ? line : `${line.slice(0, LINE_MAX - 1)}…`;
}

/** A header, then the count and the newest lines, then where to find the rest: at most 3 blocks. */
export function recentUnmatchedBlocks({ view, slackUsers }: RecentUnmatched): KnownBlock[] {
  const window = `the last ${RECENT_UNMATCHED_HOURS} hours`;
  const top = header(UNMATCHED_TITLE);
  if (view === 'unavailable')
    return [top, section(':grey_question: These changes could not be read; the details are in the log.')];
  // The count is kept per hour and the changes per event: should they disagree, no listed change is hidden.
  const counted = Math.max(view.counted, view.changes.length);
  if (counted === 0) return [top, section(`No changes to unmanaged resources in ${window}.`)];
  const lines = view.changes.slice(0, RECENT_UNMATCHED_SHOWN).map((c) => recentLine(c, slackUsers));
  const some = lines.length < counted ? `, the newest ${lines.length}` : '';
  const newest = lines.length ? `${some}:\n${lines.join('\n')}` : '.';
  return [
    top,
    section(`*${plural(counted, 'change')}* in ${window}${newest}`),
    context(['`/drift events` lists them all']),
  ];
}

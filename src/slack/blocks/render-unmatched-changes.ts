import type { KnownBlock } from '@slack/types';
import type { UnmatchedChange } from '../../domain/change-events/unmatched.js';
import { LIMITS } from '../limits.js';
import { code, escapeMrkdwn, safeLink, truncate } from './escape.js';
import { context, fallbackText, plural, section, slackDate, type SlackMessage } from './message.js';
import { HOW, sections, who } from './render-change-attribution.js';

/**
 * `/drift events`: the latest changes to resources no stack manages. Every field of an event is written
 * by whoever made the call, so all of it is escaped; the only mentions are Slack user ids from config.
 */

export interface UnmatchedChangesView {
  /** Newest first, as the store lists them. */
  changes: readonly UnmatchedChange[];
  /** Every unmatched change counted in the window, those shown included. */
  counted: number;
  /** The window, for the heading ("last 7 days"). */
  days: number;
}

export const UNMATCHED_TITLE = 'Changes to resources no stack manages';
const RESOURCES_SHOWN = 3;
const LINE_MAX = 900;

function changeLine(change: UnmatchedChange, slackUsers: Readonly<Record<string, string>>): string {
  const shown = change.resources.slice(0, RESOURCES_SHOWN).map((r) => code(truncate(r, 200)));
  const more = change.resources.length - shown.length;
  const resources = shown.length ? ` ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}` : '';
  const where = ` · account ${code(truncate(change.account, 32))} ${code(truncate(change.region, 32))}`;
  const from = change.sourceIp ? ` from ${code(truncate(change.sourceIp, 64))}` : '';
  const link = change.consoleUrl ? ` · ${safeLink(change.consoleUrl, 'CloudTrail event')}` : '';
  const call = `${code(truncate(change.eventName, 100))} (${escapeMrkdwn(truncate(change.eventSource, 64))})`;
  const line = `• ${slackDate(change.at)} ${who(change.principal, slackUsers)} ${HOW[change.how]}: ${call}${resources}${where}${from}${link}`;
  return line.length <= LINE_MAX ? line : `${line.slice(0, LINE_MAX - 1)}…`;
}

export function renderUnmatchedChanges(
  view: UnmatchedChangesView,
  options: { slackUsers?: Readonly<Record<string, string>> } = {},
): SlackMessage {
  const window = `the last ${plural(view.days, 'day')}`;
  if (view.changes.length === 0 && view.counted === 0) {
    const text = `No change to a resource no stack manages in ${window}.`;
    return { text: fallbackText(text), blocks: [section(`*${UNMATCHED_TITLE}*\n${text}`)] };
  }
  const lines = view.changes.map((c) => changeLine(c, options.slackUsers ?? {}));
  const { blocks: listed, shown } = sections(lines, LIMITS.messageBlocks - 2);
  const beyond = Math.max(0, view.counted - shown);
  const blocks: KnownBlock[] = [section(`*${UNMATCHED_TITLE}* in ${window}, newest first`), ...listed];
  if (beyond > 0) blocks.push(context([`${plural(beyond, 'more change')} counted in ${window}, not shown`]));
  const text = `${UNMATCHED_TITLE}: ${plural(view.counted, 'change')} in ${window}`;
  return { text: fallbackText(text), blocks };
}

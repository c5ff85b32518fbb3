import type { KnownBlock } from '@slack/types';
import type { Attribution, AttributedChange } from '../../domain/change-events/attribution.js';
import { type ChangeHow, type Principal, slackUserKeys } from '../../domain/change-events/describe.js';
import { HOW_TEXT } from '../../domain/drift-causes/describe.js';
import { LIMITS } from '../limits.js';
import { code, escapeMrkdwn, safeLink, truncate, userRef } from './escape.js';
import { context, fallbackText, plural, section, slackDate, type SlackMessage } from './message.js';

/**
 * "Who changed it" for a drift alert, from the change events that named the drifted resources. Every
 * field of an event is written by whoever made the call (a session name, a user agent, a key), so all
 * of it is escaped; the only mentions are Slack user ids from config, checked by `userRef`.
 */

export type { AttributedChange, Attribution };

export interface AttributionOptions {
  /** Principal ARN, issuer role ARN or name (an Identity Center user's e-mail) -> Slack user id. */
  slackUsers?: Readonly<Record<string, string>>;
  /** Changes shown in the alert itself; the thread lists all. */
  maxInAlert?: number;
  /**
   * The message is of a change merged to Git whose plan also shows drift: who changed it is said as about
   * the drift, which approving the plan overwrites, not about the merged change.
   */
  besidePendingChange?: boolean;
}

export const HOW: Readonly<Record<ChangeHow, string>> = HOW_TEXT;

const PRINCIPAL_MAX = 120;
const LINE_MAX = 600;

function mention(principal: Principal, slackUsers: Readonly<Record<string, string>>): string | undefined {
  for (const key of slackUserKeys(principal)) {
    const id = slackUsers[key];
    if (id && /^[UW][A-Z0-9]+$/.test(id)) return userRef(id);
  }
  return undefined;
}

/** The principal as a Slack mention where config maps a name AWS set (`slackUserKeys`), in bold otherwise; root flagged. */
export function who(principal: Principal, slackUsers: Readonly<Record<string, string>>): string {
  const display = escapeMrkdwn(truncate(principal.display, PRINCIPAL_MAX));
  const user = mention(principal, slackUsers);
  const root = principal.kind === 'root' ? ':warning: ' : '';
  return user ? `${root}${user} (${display})` : `${root}*${display}*`;
}

function changeLine(change: AttributedChange, slackUsers: Readonly<Record<string, string>>): string {
  const resource = change.resource ? ` ${code(truncate(change.resource, 200))}` : '';
  const from = change.sourceIp ? ` from ${code(truncate(change.sourceIp, 64))}` : '';
  const link = change.consoleUrl ? ` · ${safeLink(change.consoleUrl, 'CloudTrail event')}` : '';
  const line = `• ${who(change.principal, slackUsers)} changed${resource} ${HOW[change.how]}: ${code(truncate(change.eventName, 100))} ${slackDate(change.at)}${from}${link}`;
  return line.length <= LINE_MAX ? line : `${line.slice(0, LINE_MAX - 1)}…`;
}

/**
 * What a call sets, from its name: CloudTrail does not name attributes, but a call's kind does stand for
 * the ones it sets (PutBucketPolicy and DeleteBucketPolicy the policy), so the verb and the API version
 * some services append (Lambda's 20150331v2) are left out. Every tagging call sets the tags, however its
 * service names it (TagRole, UntagRole, CreateTags, AddTagsToResource, PutBucketTagging).
 */
const VERB =
  /^(Put|Delete|Update|Modify|Set|Create|Attach|Detach|Add|Remove|Enable|Disable|Authorize|Revoke|Associate|Disassociate|Replace|Reset|Copy|Restore)(?=[A-Z])/;
const TAGGING = /^(Tag|Untag)[A-Z]|Tags(To|From|$)|Tagging$/;
export function changedSubject(eventName: string): string {
  const name = eventName.replace(/\d{8}(v\d+)?$/, '');
  return TAGGING.test(name) ? 'Tags' : name.replace(VERB, '');
}

/**
 * The latest change to each attribute of each resource, newest first, an attribute being what a kind of
 * call sets (`changedSubject`); a change without a resource counts as its own.
 */
export function latestPerAttribute(changes: readonly AttributedChange[]): AttributedChange[] {
  const newestFirst = [...changes].sort((a, b) => b.at.getTime() - a.at.getTime());
  const seen = new Set<string>();
  return newestFirst.filter((c) => {
    const key = c.resource ? `${c.resource}\n${changedSubject(c.eventName)}` : `event:${c.eventId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Lines into sections each within Slack's section limit, cut where the message would exceed its blocks. */
export function sections(lines: string[], maxBlocks: number): { blocks: KnownBlock[]; shown: number } {
  const blocks: KnownBlock[] = [];
  let current: string[] = [];
  let length = 0;
  let shown = 0;
  for (const line of lines) {
    if (length + line.length + 1 > LIMITS.sectionText && current.length) {
      if (blocks.length + 1 >= maxBlocks) break;
      blocks.push(section(current.join('\n')));
      current = [];
      length = 0;
    }
    current.push(line);
    length += line.length + 1;
    shown++;
  }
  if (current.length) blocks.push(section(current.join('\n')));
  return { blocks, shown };
}

export interface RenderedAttribution {
  /** Blocks for the drift alert, under its summary. */
  blocks: KnownBlock[];
  /** One line for the alert's notification text. */
  text: string;
  /** Every change, for the alert's thread; absent when the alert already shows them all. */
  thread?: SlackMessage;
}

export function renderChangeAttribution(
  attribution: Attribution,
  options: AttributionOptions = {},
): RenderedAttribution {
  const label = options.besidePendingChange ? 'Who changed what drifted' : 'Who';
  const unknown = (why: string): RenderedAttribution => ({
    text: `${label.toLowerCase()}: unknown, ${why}`,
    blocks: [context([`:grey_question: *${label}:* unknown, ${why}`])],
  });
  if (attribution.status === 'unknown') return unknown('CloudTrail did not answer');
  const notAsked = attribution.notLookedUp
    ? `${plural(attribution.notLookedUp, 'more drifted resource')} not looked up (a check asks CloudTrail about a few at most)`
    : undefined;
  if (attribution.status === 'none' || attribution.changes.length === 0)
    return unknown(
      notAsked
        ? `CloudTrail has no call that changed the resources it was asked about; ${notAsked}`
        : 'CloudTrail has no call that changed these resources',
    );
  const slackUsers = options.slackUsers ?? {};
  const maxInAlert = options.maxInAlert ?? 3;
  const latest = latestPerAttribute(attribution.changes);
  const shown = latest.slice(0, maxInAlert);
  const all = [...attribution.changes].sort((a, b) => b.at.getTime() - a.at.getTime());
  const more = all.length - shown.length;
  const lines = shown.map((c) => changeLine(c, slackUsers));
  const heading = options.besidePendingChange
    ? '*Who changed what drifted* (approving this plan overwrites it)'
    : '*Who changed it*';
  const blocks: KnownBlock[] = [section(`${heading}\n${lines.join('\n')}`)];
  if (more > 0) blocks.push(context([`${plural(more, 'more change')} in the thread`]));
  if (attribution.unanswered)
    blocks.push(context([':grey_question: The other drifted resources: who unknown, CloudTrail did not answer']));
  if (notAsked) blocks.push(context([`:grey_question: ${notAsked[0]!.toUpperCase()}${notAsked.slice(1)}`]));
  const first = shown[0]!;
  // The notification text is mrkdwn-parsed too: the principal's name is escaped there as well.
  const changedBy = `${options.besidePendingChange ? 'drift ' : ''}changed by ${first.principal.display}`;
  const text = fallbackText(truncate(`${changedBy} (${first.eventName})`, 300));
  if (more <= 0) return { text, blocks };

  const threadLines = all.map((c) => changeLine(c, slackUsers));
  const { blocks: threadBlocks, shown: listed } = sections(threadLines, LIMITS.messageBlocks - 2);
  const cut = all.length - listed;
  return {
    text,
    blocks,
    thread: {
      text: `${plural(all.length, 'change')} to the drifted resources`,
      blocks: [
        section(`*${plural(all.length, 'change')} to the drifted resources*, newest first`),
        ...threadBlocks,
        ...(cut > 0 ? [context([`${plural(cut, 'older change')} not listed`])] : []),
      ],
    },
  };
}

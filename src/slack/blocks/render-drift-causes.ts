/**
 * "Why" in a drift alert: each resource's causes on one short line, resources with the same causes on
 * one line together (a state written outside driftgate explains every resource at once). Every cause's
 * text holds names from outside (a principal, a variable, a module source): all of it is escaped.
 */
import type { SectionBlock } from '@slack/types';
import type { ChangeHow } from '../../domain/change-events/describe.js';
import { HOW_TEXT, causeText, groupByCauses, stateMove } from '../../domain/drift-causes/describe.js';
import type { DriftCause, DriftCauses } from '../../domain/drift-causes/model.js';
import { LIMITS } from '../limits.js';
import { code, escapeMrkdwn, truncate } from './escape.js';
import { plural, section, slackDate } from './message.js';

const LINE_MAX = 500;
const ADDRESSES_PER_LINE = 3;

/** `in the console by *alice* 14 min ago (`PutObject`)`: the time in the reader's own clock. */
function byWhom(c: { who: string; how: ChangeHow; at: string; eventName: string }): string {
  const at = new Date(c.at);
  const when = Number.isNaN(at.getTime()) ? '' : ` ${slackDate(at, '{ago}')}`;
  return `${HOW_TEXT[c.how]} by *${escapeMrkdwn(truncate(c.who, 120))}*${when} (${code(truncate(c.eventName, 100))})`;
}

function causeMrkdwn(cause: DriftCause): string {
  if (cause.kind === 'out_of_band') return `changed ${byWhom(cause)}`;
  if (cause.kind === 'state_outside' && cause.writer) {
    const { verb, what } = stateMove(cause);
    return `the state was ${verb} outside driftgate ${byWhom(cause.writer)}: ${escapeMrkdwn(what)}, no driftgate apply in between`;
  }
  const text = escapeMrkdwn(causeText(cause));
  return cause.kind === 'unknown' ? `:grey_question: ${text}` : text;
}

/** The section under the alert's summary; undefined when no resource has a cause to tell. */
export function renderDriftCauses(causes: DriftCauses | undefined, maxLines = 8): SectionBlock | undefined {
  const groups = groupByCauses(causes, (list) => list.map(causeMrkdwn).join('; '));
  if (groups.length === 0) return undefined;
  const lines: string[] = [];
  let length = 0;
  let left = 0;
  for (const { text, addresses } of groups) {
    const named = addresses.slice(0, ADDRESSES_PER_LINE).map((a) => code(truncate(a, 120)));
    const more = addresses.length > named.length ? ` and ${addresses.length - named.length} more` : '';
    const full = `• ${named.join(', ')}${more}: ${text}`;
    const line = full.length <= LINE_MAX ? full : `${full.slice(0, LINE_MAX - 1)}…`;
    if (lines.length >= maxLines || length + line.length + 80 > LIMITS.sectionText) {
      left += addresses.length;
      continue;
    }
    lines.push(line);
    length += line.length + 1;
  }
  if (left) lines.push(`… and ${plural(left, 'more resource')}: \`/drift show\` lists them`);
  return section(`*Why*\n${lines.join('\n')}`);
}

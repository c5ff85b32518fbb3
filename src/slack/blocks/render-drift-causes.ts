/**
 * "Why" in a drift alert: each resource's causes on one short line, resources with the same causes on
 * one line together (a state written outside driftgate explains every resource at once). Every cause's
 * text holds names from outside (a principal, a variable, a module source): all of it is escaped.
 */
import type { SectionBlock } from '@slack/types';
import { HOW_TEXT, causeText } from '../../domain/drift-causes/describe.js';
import type { DriftCause, DriftCauses } from '../../domain/drift-causes/model.js';
import { LIMITS } from '../limits.js';
import { code, escapeMrkdwn, truncate } from './escape.js';
import { plural, section, slackDate } from './message.js';

const LINE_MAX = 500;
const ADDRESSES_PER_LINE = 3;

function causeMrkdwn(cause: DriftCause): string {
  if (cause.kind === 'out_of_band') {
    const at = new Date(cause.at);
    const when = Number.isNaN(at.getTime()) ? '' : ` ${slackDate(at, '{ago}')}`;
    return `changed ${HOW_TEXT[cause.how]} by *${escapeMrkdwn(truncate(cause.who, 120))}*${when} (${code(truncate(cause.eventName, 100))})`;
  }
  const text = escapeMrkdwn(causeText(cause));
  return cause.kind === 'unknown' ? `:grey_question: ${text}` : text;
}

/** The section under the alert's summary; undefined when no resource has a cause to tell. */
export function renderDriftCauses(causes: DriftCauses | undefined, maxLines = 8): SectionBlock | undefined {
  const groups = new Map<string, string[]>();
  for (const [address, list] of Object.entries(causes ?? {})) {
    const text = list.map(causeMrkdwn).join('; ');
    groups.set(text, [...(groups.get(text) ?? []), address]);
  }
  if (groups.size === 0) return undefined;
  const lines: string[] = [];
  let length = 0;
  let left = 0;
  for (const [text, addresses] of groups) {
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

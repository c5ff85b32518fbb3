/**
 * One resource of a plan as mrkdwn: what happens to it, then its attribute changes in a code block.
 * Values are already masked in the analysis; here they are only escaped and cut. Destroys and
 * replacements get a red marker and bold words, because they are what a reviewer must not miss.
 */
import type { AttributeChange, ResourceChange } from '../../domain/plan/model.js';
import { formatDiffValue, formatJsonChange, formatJsonSummary } from '../../domain/plan/render-value.js';
import { code, escapeCode, escapeMrkdwn, truncate } from './escape.js';

/** A resource's text stays well under a section's 3000 characters so several share one block. */
export const MAX_RESOURCE_CHARS = 1400;
const MAX_ATTRIBUTES = 12;
const MAX_LINE_CHARS = 160;
/** Changes shown inside one JSON-encoded attribute: a rewritten policy must not crowd out the rest. */
const MAX_JSON_LINES = 10;
/** Room kept for the closing "… N more" lines and the fences. */
const TAIL_CHARS = 80;

const PLANNED: Record<ResourceChange['action'], string> = {
  create: ':large_green_circle: will be *created*',
  update: ':large_yellow_circle: will be *updated in place*',
  delete: ':red_circle: will be *DESTROYED*',
  replace: ':red_circle: must be *REPLACED* (destroyed and created again)',
  read: ':mag: will be read during apply',
  'no-op': ':truck:',
};

function headline(change: ResourceChange, drift: boolean): string {
  if (drift)
    return change.action === 'delete'
      ? ':red_circle: was *deleted* outside Terraform'
      : ':large_orange_circle: was *changed* outside Terraform';
  if (change.action === 'no-op') return change.importing ? ':inbox_tray: will be imported' : ':truck: has moved';
  let text = PLANNED[change.action];
  if (change.action === 'replace') {
    const forcing = change.attributes.filter((a) => a.forcesReplacement).map((a) => a.path);
    const paths = forcing.length ? forcing : change.replacePaths;
    if (paths.length)
      text += `, forced by ${paths.slice(0, 3).map(code).join(', ')}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''}`;
    if (change.replaceOrder === 'create-first') text += ' (create before destroy)';
  }
  return text;
}

function attributeLine(attr: AttributeChange): string {
  const forces = attr.forcesReplacement ? '  # forces replacement' : '';
  let symbol = '~';
  let value = `${formatDiffValue(attr.before)} -> ${formatDiffValue(attr.after)}`;
  if (attr.before.kind === 'absent') [symbol, value] = ['+', formatDiffValue(attr.after)];
  else if (attr.after.kind === 'absent') [symbol, value] = ['-', `${formatDiffValue(attr.before)} -> null`];
  else if (attr.json) value = formatJsonSummary(attr.json);
  else if (attr.before.kind === 'sensitive' && attr.after.kind === 'sensitive') value = formatDiffValue(attr.after);
  // Cut before escaping: the budget is for what people read, and an entity must stay whole.
  return escapeCode(truncate(`${symbol} ${attr.path} = ${value}${forces}`, MAX_LINE_CHARS));
}

function notes(change: ResourceChange): string[] {
  const lines: string[] = [];
  if (change.previousAddress) lines.push(`moved from ${code(change.previousAddress)}`);
  if (change.importing && change.action !== 'no-op') lines.push('imported');
  if (change.actionReason && (change.action === 'delete' || change.action === 'read'))
    lines.push(escapeMrkdwn(change.actionReason.replaceAll('_', ' ')));
  return lines;
}

/** The mrkdwn of one resource, at most MAX_RESOURCE_CHARS long. */
export function resourceText(change: ResourceChange, drift: boolean): string {
  const address = code(truncate(change.address, 200));
  const extra = notes(change);
  const head = `${address} ${headline(change, drift)}${extra.length ? ` _(${extra.join('; ')})_` : ''}`;
  if (change.attributes.length === 0) return truncate(head, MAX_RESOURCE_CHARS);
  const lines: string[] = [];
  let length = head.length + 10;
  const fits = (line: string, reserve = 0) => length + line.length + 1 <= MAX_RESOURCE_CHARS - TAIL_CHARS - reserve;
  const add = (line: string) => {
    lines.push(line);
    length += line.length + 1;
  };
  let shown = 0;
  for (const attr of change.attributes.slice(0, MAX_ATTRIBUTES)) {
    const line = attributeLine(attr);
    // A JSON attribute's line keeps room for its "… N more changes" line.
    if (!fits(line, attr.json ? TAIL_CHARS / 2 : 0)) break;
    add(line);
    shown += 1;
    if (!attr.json) continue;
    let inside = 0;
    for (const c of attr.json.changes.slice(0, MAX_JSON_LINES)) {
      const jsonLine = escapeCode(truncate(`    ${formatJsonChange(c)}`, MAX_LINE_CHARS));
      if (!fits(jsonLine, TAIL_CHARS / 2)) break;
      add(jsonLine);
      inside += 1;
    }
    const more = attr.json.changes.length + attr.json.omitted - inside;
    if (more > 0) add(`    … ${more} more change${more === 1 ? '' : 's'} in the full plan`);
  }
  const hidden = change.attributes.length - shown;
  if (hidden > 0) lines.push(`… ${hidden} more attribute${hidden === 1 ? '' : 's'} in the full plan`);
  return `${head}\n\`\`\`\n${lines.join('\n')}\n\`\`\``;
}

/**
 * A plan's resources packed into as few section blocks as fit, within a block and character budget.
 * Slack allows 50 blocks per message and 3000 characters per section; packing several small resources
 * per section shows far more of a plan than one block each. What does not fit is counted, so the caller
 * can say "+N more resources" and upload the full plan.
 */
import type { SectionBlock } from '@slack/types';
import type { ResourceChange } from '../../domain/plan/model.js';
import { LIMITS } from '../limits.js';
import { section } from './message.js';
import { resourceText } from './resource-diff.js';

export interface DiffBudget {
  blocks: number;
  /** Total characters of diff text: a message people scroll through, not the record (that is the file). */
  chars: number;
}

const SEVERITY: Partial<Record<ResourceChange['action'], number>> = { delete: 0, replace: 1 };

/** Destroys and replacements first, then by address: if the plan is cut, they are what stays. */
export function bySeverity(changes: readonly ResourceChange[]): ResourceChange[] {
  return [...changes].sort(
    (a, b) =>
      (SEVERITY[a.action] ?? 2) - (SEVERITY[b.action] ?? 2) ||
      (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
  );
}

export function diffSections(
  title: string,
  changes: readonly ResourceChange[],
  drift: boolean,
  budget: DiffBudget,
): { blocks: SectionBlock[]; shown: number; omitted: number } {
  if (changes.length === 0 || budget.blocks < 1) return { blocks: [], shown: 0, omitted: changes.length };
  const texts: string[] = [title];
  let chars = title.length;
  let shown = 0;
  for (const change of bySeverity(changes)) {
    const text = resourceText(change, drift);
    if (chars + text.length > budget.chars) break;
    const last = texts.length - 1;
    if (texts[last]!.length + text.length + 2 <= LIMITS.sectionText) texts[last] += `\n\n${text}`;
    else if (texts.length < budget.blocks) texts.push(text);
    else break;
    chars += text.length;
    shown += 1;
  }
  return { blocks: texts.map((t) => section(t)), shown, omitted: changes.length - shown };
}

/** `/drift show <stack>`: the latest plan of one stack, summarised (ephemeral). */
import type { KnownBlock } from '@slack/types';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import { causeText } from '../../domain/drift-causes/describe.js';
import type { Run } from '../../domain/run/model.js';
import { LIMITS } from '../limits.js';
import { bySeverity } from './diff-sections.js';
import { code, escapeMrkdwn, truncate } from './escape.js';
import { context, header, section, slackDate, stackLabel, type SlackMessage, type StackRef } from './message.js';

export interface ShowInput {
  stack: StackRef;
  /** The latest run, if the stack was ever checked. */
  run?: Run;
  analysis?: PlanAnalysis;
  /** Changes an `ignore` rule covers are listed as ignored, with the rule's name. */
  policy?: PolicyEvaluation;
}

const VERB: Record<string, string> = {
  create: 'create',
  update: 'update',
  delete: '*DESTROY*',
  replace: '*REPLACE*',
  read: 'read',
  'no-op': 'move',
};

export function renderShow(input: ShowInput): SlackMessage {
  const { stack, run, analysis } = input;
  if (!run) {
    return {
      text: `${escapeMrkdwn(stack.name)} has not been checked yet`,
      blocks: [section(`${stackLabel(stack)} has not been checked yet.`)],
    };
  }
  const counts = analysis ? formatCounts(analysis.counts) : run.counts ? formatCounts(run.counts) : 'unknown';
  const blocks: KnownBlock[] = [
    header(`Latest plan: ${stack.name}`),
    section(
      `*${counts}* · state ${code(run.state)}${run.error ? `\n:x: ${escapeMrkdwn(truncate(run.error, 1000))}` : ''}`,
    ),
    context([
      `Run ${code(run.id)}`,
      slackDate(run.createdAt),
      run.commitSha ? `Commit ${code(run.commitSha.slice(0, 10))}` : '',
      `Mode ${code(stack.mode)}`,
    ]),
  ];
  if (analysis) {
    const ignoredBy = new Map((input.policy?.ignored ?? []).map((i) => [i.address, i.rule]));
    const note = (address: string) =>
      ignoredBy.has(address) ? ` _(ignored by ${code(truncate(ignoredBy.get(address)!, 80))})_` : '';
    // Why once per resource: on its drift line, or on its planned change when it did not drift.
    const drifted = new Set(analysis.drift.map((d) => d.address));
    const why = (address: string, drift: boolean) => {
      const causes = drift || !drifted.has(address) ? analysis.causes?.[address] : undefined;
      return causes?.length ? ` — ${escapeMrkdwn(truncate(causes.map((c) => causeText(c)).join('; '), 400))}` : '';
    };
    const line = (drift: boolean) => (c: PlanAnalysis['changes'][number]) =>
      `• ${drift ? 'changed outside Terraform' : VERB[c.action]} ${code(truncate(c.address, 150))}${note(c.address)}${why(c.address, drift)}`;
    const lines = [...analysis.drift.map(line(true)), ...bySeverity(analysis.changes).map(line(false))];
    let text = '';
    let shown = 0;
    for (const l of lines) {
      if (text.length + l.length + 80 > LIMITS.sectionText) break;
      text += `${l}\n`;
      shown += 1;
    }
    if (shown < lines.length)
      text += `… and ${lines.length - shown} more; the full plan is in the stack's channel thread`;
    if (text) blocks.push(section(text.trimEnd()));
  }
  return { text: `Latest plan for ${escapeMrkdwn(stack.name)}: ${counts}`, blocks };
}

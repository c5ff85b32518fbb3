/**
 * The drift alert / pending-approval message and every later state of it. It is posted once and updated
 * in place as the run moves, so everything it shows is derived from the inputs: the same run in the
 * same phase always renders the same message.
 */
import type { KnownBlock } from '@slack/types';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation, PolicyFinding } from '../../domain/policy/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { Run } from '../../domain/run/model.js';
import { BLOCK_IDS } from '../action-ids.js';
import { LIMITS } from '../limits.js';
import { bySeverity, diffSections } from './diff-sections.js';
import { code, escapeMrkdwn, safeLink, safeMention, truncate } from './escape.js';
import {
  actions,
  context,
  divider,
  header,
  plural,
  section,
  slackDate,
  stackLabel,
  type SlackMessage,
  type StackRef,
} from './message.js';
import type { Attribution } from '../../domain/change-events/attribution.js';
import { renderChangeAttribution } from './render-change-attribution.js';
import { renderDriftCauses } from './render-drift-causes.js';
import { runButtons } from './run-buttons.js';
import { isAwaiting, phaseStatusLine, type ApprovalInfo, type RunPhase } from './run-phase.js';

export interface RunMessageInput {
  stack: StackRef;
  run: Run;
  analysis: PlanAnalysis;
  phase: RunPhase;
  approval?: ApprovalInfo;
  canRemediate: boolean;
  /** The remediation PR once opened: shown as a link, and the button goes away. */
  remediationUrl?: string;
  /** Config mention for on-call, e.g. `<!subteam^S123>`; only shown while the run awaits a decision. */
  mention?: string;
  /** What the policies said: denials and warnings are listed; a denied plan has no Approve button. */
  policy?: PolicyEvaluation;
  /** A pending change's commits since the one last applied, newest first. */
  commits?: CommitLine[];
  /** Who changed the drifted resources (change events, CloudTrail). */
  attribution?: Attribution;
  /** Cloud identity -> Slack user id, for mentioning who made a change (`changeEvents.slackUsers`). */
  slackUsers?: Readonly<Record<string, string>>;
}

export interface CommitLine {
  sha: string;
  author: string;
  title: string;
  prNumber?: number;
  prUrl?: string;
  commitUrl?: string;
}

/** The part of the message that is not the diff: header, summary, policy, commits, context, status, more, buttons. */
const FIXED_BLOCKS = 11;
/** Commits named in the message; the rest are counted. */
const COMMITS_SHOWN = 5;
/** Diff text per message: enough for a real review, short enough to read; the rest is in the file. */
export const DIFF_CHAR_BUDGET = 12_000;

function isDrift(run: Run, analysis: PlanAnalysis): boolean {
  return run.kind ? run.kind === 'drift' : analysis.drift.length > 0;
}

export function runTitle(stackName: string, drift: boolean): string {
  return `${drift ? 'Drift detected in' : 'Changes waiting to be applied in'} ${stackName}`;
}

function summary(input: RunMessageInput): string {
  const { analysis, stack } = input;
  const mention = input.mention && isAwaiting(input.phase) ? safeMention(input.mention) : undefined;
  const lines = [`${mention ? `${mention} ` : ''}*${formatCounts(analysis.counts)}* in ${stackLabel(stack)}`];
  const doomed = bySeverity(analysis.changes).filter((c) => c.action === 'delete' || c.action === 'replace');
  if (doomed.length) {
    const names = doomed
      .slice(0, 5)
      .map((c) => code(truncate(c.address, 120)))
      .join(', ');
    const more = doomed.length > 5 ? ` and ${doomed.length - 5} more` : '';
    lines.push(`:warning: *${plural(doomed.length, 'resource')} will be destroyed or replaced:* ${names}${more}`);
  }
  if (analysis.drift.length) lines.push(`${plural(analysis.drift.length, 'resource')} changed outside Terraform`);
  if (analysis.outputs.length) lines.push(`${plural(analysis.outputs.length, 'output')} will change`);
  if (!analysis.applyable && analysis.hasChanges)
    lines.push(':no_entry: Terraform reported errors while planning: this plan cannot be applied.');
  return lines.join('\n');
}

/** Denials first, then warnings, then what was ignored: one line each, within one section. */
function policyLines(policy: PolicyEvaluation): string {
  const icon: Partial<Record<PolicyFinding['effect'], string>> = {
    deny: ':no_entry:',
    warn: ':warning:',
    require_approval: ':busts_in_silhouette:',
  };
  const order = ['deny', 'require_approval', 'warn'] as const;
  const lines = order.flatMap((effect) =>
    policy.findings
      .filter((f) => f.effect === effect)
      .map((f) => `${icon[effect]} ${code(truncate(f.rule, 80))}: ${escapeMrkdwn(truncate(f.message, 300))}`),
  );
  const shown = lines.slice(0, 12);
  if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more policy findings`);
  if (policy.ignored.length) {
    const rules = [...new Set(policy.ignored.map((i) => i.rule))].map((r) => code(truncate(r, 80)));
    shown.push(`:see_no_evil: ${plural(policy.ignored.length, 'change')} ignored by ${rules.join(', ')}`);
  }
  return shown.join('\n');
}

/** One line per commit, newest first; lines that would not fit the section are counted with the rest. */
function commitLines(commits: CommitLine[], awaiting: boolean): string {
  const lines = [awaiting ? '*Commits waiting to be applied:*' : '*Commits in this change:*'];
  let length = lines[0]!.length;
  let shown = 0;
  for (const c of commits.slice(0, COMMITS_SHOWN)) {
    const sha = c.commitUrl ? safeLink(c.commitUrl, c.sha.slice(0, 7)) : code(c.sha.slice(0, 7));
    const pr = c.prUrl ? ` · ${safeLink(c.prUrl, c.prNumber !== undefined ? `#${c.prNumber}` : 'pull request')}` : '';
    const line = `• ${sha} ${truncate(escapeMrkdwn(c.title), 150)} — ${truncate(escapeMrkdwn(c.author), 60)}${pr}`;
    // Room kept for the "+N more" line.
    if (length + 1 + line.length > LIMITS.sectionText - 40) break;
    lines.push(line);
    length += 1 + line.length;
    shown += 1;
  }
  if (commits.length > shown) lines.push(`+${commits.length - shown} more`);
  return lines.join('\n');
}

function contextLine(stack: StackRef, run: Run): string[] {
  return [
    `Stack ${code(stack.name)}`,
    stack.environment ? `Env ${code(stack.environment)}` : '',
    run.commitSha ? `Commit ${code(run.commitSha.slice(0, 10))}` : '',
    `Run ${code(run.id)}`,
    slackDate(run.createdAt),
    `Mode ${code(stack.mode)}`,
  ];
}

export function renderRunMessage(input: RunMessageInput): {
  message: SlackMessage;
  omittedResources: number;
  /** Every change to the drifted resources, for the thread, when the message could not list them all. */
  changesThread?: SlackMessage;
} {
  const { stack, run, analysis, phase, policy } = input;
  const drift = isDrift(run, analysis);
  const who = input.attribution
    ? renderChangeAttribution(input.attribution, {
        ...(input.slackUsers ? { slackUsers: input.slackUsers } : {}),
        besidePendingChange: !drift,
      })
    : undefined;
  const denied = Boolean(policy?.denied) && isAwaiting(phase);
  const status = denied
    ? ':no_entry: Denied by policy: this plan cannot be applied from Slack. Reject it, or change the code or the policy'
    : phaseStatusLine(phase, input.approval);
  const findings = policy ? policyLines(policy) : '';
  const why = renderDriftCauses(analysis.causes);
  const blocks: KnownBlock[] = [
    header(runTitle(stack.name, drift)),
    section(summary(input)),
    ...(why ? [why] : []),
    ...(who?.blocks ?? []),
    ...(findings ? [section(findings)] : []),
    ...(input.commits?.length ? [section(commitLines(input.commits, isAwaiting(phase)))] : []),
    context(contextLine(stack, run)),
    section(status, { block_id: BLOCK_IDS.runStatus }),
  ];
  if (input.remediationUrl)
    blocks.push(context([`:hammer_and_wrench: Remediation PR: ${safeLink(input.remediationUrl, 'open on GitHub')}`]));

  const budget = LIMITS.messageBlocks - FIXED_BLOCKS - (who?.blocks.length ?? 0) - (why ? 1 : 0);
  const both = analysis.drift.length > 0 && analysis.changes.length > 0;
  const driftPart = diffSections('*Changed outside Terraform*', analysis.drift, true, {
    blocks: both ? Math.floor(budget / 2) : budget,
    chars: both ? DIFF_CHAR_BUDGET / 2 : DIFF_CHAR_BUDGET,
  });
  const used = driftPart.blocks.length;
  const usedChars = driftPart.blocks.reduce((n, b) => n + (b.text?.text.length ?? 0), 0);
  const planTitle = drift ? '*Applying the plan would change*' : '*Planned changes*';
  const planPart = diffSections(planTitle, analysis.changes, false, {
    blocks: budget - used,
    chars: DIFF_CHAR_BUDGET - usedChars,
  });
  const omittedResources = driftPart.omitted + planPart.omitted;
  if (driftPart.blocks.length + planPart.blocks.length) blocks.push(divider, ...driftPart.blocks, ...planPart.blocks);
  if (omittedResources)
    blocks.push(
      section(
        `:page_facing_up: +${omittedResources} more resource${omittedResources === 1 ? '' : 's'} — full plan in the thread`,
      ),
    );

  if (isAwaiting(phase)) {
    const buttons = runButtons({
      runId: run.id,
      stackName: stack.name,
      counts: analysis.counts,
      applyable: analysis.applyable && !policy?.denied,
      canRemediate: input.canRemediate && !input.remediationUrl,
    });
    blocks.push(actions(buttons, BLOCK_IDS.runActions));
  }
  const changedBy = who ? ` ${who.text}.` : '';
  const text = `${escapeMrkdwn(runTitle(stack.name, drift))}: ${formatCounts(analysis.counts)}.${changedBy} ${status.replace(/^:[a-z_0-9]+: /, '')}`;
  return {
    message: { text: truncate(text, 3000), blocks },
    omittedResources,
    ...(who?.thread ? { changesThread: who.thread } : {}),
  };
}

/**
 * The text of a remediation PR: branch name, title, body and commit message, from the codify plan and
 * the masked analysis. Pure. The body is for the reviewer on GitHub: what was written into the code,
 * what was left for a person and how to do it, and the drift as terraform planned it. Every text goes
 * through the plan's redactor last, so no value terraform knows as secret can reach GitHub.
 */
import type { PlanAnalysis, Redactor } from '../plan/model.js';
import { formatPath } from '../plan/paths.js';
import { renderPlanText } from '../plan/render-text.js';
import { hclLiteral } from './hcl-literal.js';
import type { RemediationPlan } from './plan-remediation.js';

/** GitHub refuses PR bodies over 65,536 characters; keep room for the footer. */
const MAX_BODY = 60_000;
const MAX_VALUE = 160;
/** Characters of the fingerprint in the branch name: enough to tell drifts apart, short to read. */
const FINGERPRINT_PREFIX = 12;

export interface PullRequestTextInput {
  stack: string;
  fingerprint: string;
  runId: string;
  /** The commit the plan ran at, which the branch is built on. */
  commitSha: string;
  plan: RemediationPlan;
  /** The run's masked analysis, for the diff summary. */
  analysis: PlanAnalysis;
  redactor: Redactor;
  /** Who asked, as a reader on GitHub should see it (`ada in Slack`). */
  requestedBy: string;
  /** The Slack thread of the drift alert, when it is known. */
  threadUrl?: string;
}

export interface PullRequestText {
  title: string;
  body: string;
  commitMessage: string;
}

/** `driftgate/prod/networking/3f9a0c1d2e4b`: one branch per stack and drift. */
export function remediationBranch(stack: string, fingerprint: string): string {
  // Stack names are letters, digits, `._-/`; git refuses `..`, a leading `.` in a component and `.lock`.
  const safe = stack
    .split('/')
    .map((part) =>
      part
        .replace(/\.\.+/g, '.')
        .replace(/^\./, '_')
        .replace(/\.lock$/, '_lock'),
    )
    .join('/');
  return `driftgate/${safe}/${fingerprint.slice(0, FINGERPRINT_PREFIX)}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function resourcesOf(plan: RemediationPlan): string[] {
  return [...new Set(plan.edits.map((e) => e.address))];
}

export function pullRequestTitle(stack: string, plan: RemediationPlan): string {
  return `Accept drift in ${stack}: ${plural(plan.edits.length, 'attribute')} in ${plural(resourcesOf(plan).length, 'resource')}`;
}

/** Inline code that survives backticks in the text: the fence is longer than any run of them inside. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

function valueText(value: unknown): string {
  if (value === undefined) return '(not set)';
  const text = hclLiteral(value).replace(/\s*\n\s*/g, ' ');
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/**
 * Markdown outside code must not turn into mentions, links, images or HTML: a guidance quotes real values
 * (a tag anyone with console access can set) and, with workers, comes from a process that ran the stack's
 * modules. A bracket is escaped (GitHub shows `\[` as `[`), and a URL broken with a zero-width space, so
 * GitHub does not make a link of it either.
 */
function plainText(text: string): string {
  return text
    .replace(/[\\[\]]/g, (c) => `\\${c}`)
    .replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!)
    .replace(/@/g, '@\u200b')
    .replace(/:\/\//g, ':\u200b//')
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\u200b.`);
}

function codifiedLines(plan: RemediationPlan): string[] {
  return plan.edits.map(
    (e) =>
      `- ${code(e.address)} ${code(formatPath(e.path))} in ${code(e.file)}: ${code(valueText(e.before))} → ${code(valueText(e.value))}`,
  );
}

function leftLines(plan: RemediationPlan): string[] {
  return plan.skipped.map((s) => {
    const what = s.attribute ? `${code(s.address)} ${code(s.attribute)}` : code(s.address);
    return `- ${what} (${plainText(s.reason)}): ${plainText(s.guidance)}`;
  });
}

/** `lines` with the tail replaced by a count once they would pass `budget` characters. */
function within(lines: string[], budget: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    if (used + line.length + 1 > budget) {
      kept.push(`- … and ${lines.length - i} more`);
      break;
    }
    kept.push(line);
    used += line.length + 1;
  }
  return kept;
}

function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}diff\n${text}\n${fence}`;
}

function bodyText(input: PullRequestTextInput): string {
  const { plan } = input;
  const resources = resourcesOf(plan).length;
  const asked = input.threadUrl
    ? `Asked for by ${plainText(input.requestedBy)} from [the drift alert in Slack](${input.threadUrl}).`
    : `Asked for by ${plainText(input.requestedBy)}.`;
  const intro = [
    `driftgate found drift in ${code(input.stack)}: the real infrastructure no longer matches the code. This PR writes the real values into the code, so that merging it accepts the drift; to put the infrastructure back instead, approve the apply in Slack and close this PR.`,
    '',
    asked,
    `Run ${code(input.runId)}, planned at ${code(input.commitSha.slice(0, 12))}.`,
  ];
  const left = plan.skipped.length;
  const leftHeader = left
    ? `### Left for a person (${left})\n\nNot codified, because driftgate does not guess:`
    : '### Left for a person\n\nNothing: every drifted attribute was codified.';
  const footer = `\n<!-- driftgate fingerprint=${input.fingerprint} run=${input.runId} -->`;
  const listsBudget = Math.floor((MAX_BODY - intro.join('\n').length) / 2);
  const sections = [
    ...intro,
    '',
    `### Codified (${plural(plan.edits.length, 'attribute')} in ${plural(resources, 'resource')})`,
    '',
    ...within(codifiedLines(plan), listsBudget / 2),
    '',
    leftHeader,
    ...(left ? ['', ...within(leftLines(plan), listsBudget / 2)] : []),
    '',
    'After merging, driftgate plans the stack again and reports the drift resolved once the plan is clean.',
  ];
  const head = sections.join('\n');
  // The diff summary gets what is left, fewer resources shown until it fits; left out when none does.
  for (const maxResources of [50, 20, 5, 0]) {
    const diff = `\n\n<details><summary>Drift as terraform planned it (sensitive values masked)</summary>\n\n${fenced(renderPlanText(input.analysis, { maxResources }))}\n\n</details>`;
    if (head.length + diff.length + footer.length <= MAX_BODY) return `${head}${diff}${footer}`;
  }
  return `${head}${footer}`;
}

function commitMessageText(input: PullRequestTextInput): string {
  const byResource = new Map<string, string[]>();
  for (const e of input.plan.edits)
    byResource.set(e.address, [...(byResource.get(e.address) ?? []), formatPath(e.path)]);
  const lines = [...byResource].map(([address, paths]) => `- ${address}: ${paths.join(', ')}`);
  const left = input.plan.skipped.length;
  return [
    `Accept drift in ${input.stack}`,
    '',
    `Codified by driftgate from run ${input.runId} (planned at ${input.commitSha.slice(0, 12)}):`,
    ...within(lines, 4000),
    ...(left ? ['', `${plural(left, 'finding')} left for a person, listed in the pull request.`] : []),
  ].join('\n');
}

export function remediationPullRequestText(input: PullRequestTextInput): PullRequestText {
  const redact = (text: string) => input.redactor.redact(text);
  return {
    title: redact(pullRequestTitle(input.stack, input.plan)),
    body: redact(bodyText(input)),
    commitMessage: redact(commitMessageText(input)),
  };
}

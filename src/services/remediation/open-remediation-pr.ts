/**
 * "Open remediation PR": the drift of a run written into the stack's code on a branch of its own, and a
 * pull request to accept it. The code is written and checked by the codify step (codifyDrift, here or on a
 * worker of the stack's pool); what it gives is held to the stack's `.tf` files before anything reaches
 * GitHub, and the PR's title, body and commit message are written here, from the run this process knows.
 * The same drift (stack and fingerprint) asked for twice links the PR already open.
 */
import type { Stack } from '../../domain/stack.js';
import { repositoryOf } from '../source/github-repository.js';
import { RemediationAnswerRefusedError, RemediationUnavailableError } from '../../domain/errors.js';
import type { RemediationPlan, RemediationSkip } from '../../domain/remediation/plan-remediation.js';
import {
  type PullRequestText,
  remediationBranch,
  remediationPullRequestText,
} from '../../domain/remediation/pull-request.js';
import type { RemediationRecord } from '../../domain/remediation/record.js';
import { type RefusedPath, refusedRemediationPaths } from '../../domain/remediation/remediation-paths.js';
import type { Run } from '../../domain/run/model.js';
import type { GitHubClient, GitHubRepository } from '../../ports/github.js';
import {
  type Codified,
  type Codify,
  type CodifyDeps,
  type CodifyRequest,
  codifyDrift,
  loadRunPlan,
  type RunPlan,
  stackRedactor,
} from './codify-drift.js';
import type { ServiceDeps } from '../runtime/deps.js';

export interface RemediationDeps extends CodifyDeps, Pick<ServiceDeps, 'now'> {
  github: GitHubClient;
  settings: { labels: string[]; draft: boolean };
  /** Where the code is rewritten and checked; default here, with `checks`. */
  codify?: Codify;
}

export interface RemediationRequest extends CodifyRequest {
  /** Recorded and audited: a Slack user id, or `cli`. */
  actor: string;
}

export type RemediationOutcome =
  | { status: 'opened'; record: RemediationRecord; plan: RemediationPlan }
  /** The same drift already has an open PR. */
  | { status: 'existing'; record: RemediationRecord }
  /** The PR of this drift was merged; the stack has not been checked since. */
  | { status: 'merged'; record: RemediationRecord }
  /** Nothing could be written into the code: everything is for a person. */
  | { status: 'nothing_to_codify'; skipped: RemediationSkip[] };

/** Why this run's drift cannot go to a PR, or undefined when it can. */
export function remediationRefusal(stack: Stack, run: Run): string | undefined {
  if (run.kind !== 'drift') return `run ${run.id} is not drift: only drift of the real infrastructure is codified`;
  if (run.state !== 'drifted')
    return `run ${run.id} is ${run.state.replaceAll('_', ' ')}: only a drift awaiting a decision is codified (a newer check may have replaced it)`;
  if (!stack.git)
    return `stack ${stack.name} is a local directory: remediation PRs need the stack in a Git repository (source.git)`;
  if (!repositoryOf(stack))
    return `the GitHub repository of ${stack.git.url} is not known: set source.git.repository to owner/name`;
  if (!run.commitSha) return `run ${run.id} has no commit: the plan did not run in a checkout`;
  return undefined;
}

function recordOf(
  stack: Stack,
  run: Run,
  repo: GitHubRepository,
  branch: string,
  pr: { number: number; url: string },
  request: RemediationRequest,
  now: Date,
  plan?: RemediationPlan,
): RemediationRecord {
  return {
    stack: stack.name,
    fingerprint: run.fingerprint!,
    runId: run.id,
    repository: `${repo.owner}/${repo.name}`,
    branch,
    prNumber: pr.number,
    prUrl: pr.url,
    requestedBy: request.actor,
    createdAt: now,
    codified: plan?.edits.length ?? 0,
    leftForPerson: plan?.skipped.length ?? 0,
  };
}

/**
 * The PR this drift already has: open (recorded, or found on GitHub after a crash between opening and
 * recording it), or recorded and merged since the last check. A recorded PR closed unmerged was turned
 * down as a way to accept the drift, so asking again opens a new one.
 */
async function existingPullRequest(
  deps: RemediationDeps,
  stack: Stack,
  run: Run,
  repo: GitHubRepository,
  branch: string,
  request: RemediationRequest,
): Promise<RemediationOutcome | undefined> {
  const recorded = await deps.store.getRemediation(stack.name, run.fingerprint!);
  const open = await deps.github.findOpenPullRequest(repo, branch, stack.git!.branch);
  if (open && recorded?.prNumber === open.number) return { status: 'existing', record: recorded };
  if (open) {
    const adopted = recordOf(stack, run, repo, branch, open, request, deps.now());
    await deps.store.saveRemediation(adopted);
    return { status: 'existing', record: adopted };
  }
  if (!recorded) return undefined;
  const pr = await deps.github.getPullRequest(repo, recorded.prNumber);
  return pr?.merged ? { status: 'merged', record: recorded } : undefined;
}

/** Refused paths listed in the thread, the audit and the log; the rest are counted. */
const MAX_LISTED = 5;

function refusalMessage(stack: Stack, refused: readonly RefusedPath[]): string {
  const listed = refused.slice(0, MAX_LISTED).map((r) => `${r.path} (${r.why})`);
  const more = refused.length > MAX_LISTED ? `, and ${refused.length - MAX_LISTED} more` : '';
  const dir = stack.git!.path.replace(/\/+$/, '') || '.';
  return `the code written for this drift names files a remediation of ${stack.name} may not touch, so nothing was committed: ${listed.join(', ')}${more}. Only the .tf files in ${dir} are ever rewritten: a result like this comes from a broken or tampered codify step (with workers, a worker of pool ${stack.pool}). It is in the audit as remediation_answer_refused.`;
}

/** The resources the run's plan changes or saw drift in: the only ones a codify result may have edited. */
function plannedAddresses(plan: RunPlan['plan']): Set<string> {
  return new Set([...(plan.resource_drift ?? []), ...(plan.resource_changes ?? [])].map((r) => r.address));
}

/**
 * The PR's title, body and commit message, from what this process knows: the run, its stored plan (the
 * drift as terraform planned it, masked), who asked and where. The codified and left lists come from the
 * codify result, whose names and texts are plain text by then (a worker's answer is parsed so).
 */
function pullRequestTextOf(
  deps: RemediationDeps,
  stack: Stack,
  run: Run,
  { analysis, planRedactor }: RunPlan,
  plan: RemediationPlan,
  request: RemediationRequest,
): PullRequestText {
  return remediationPullRequestText({
    stack: stack.name,
    fingerprint: run.fingerprint!,
    runId: run.id,
    commitSha: run.commitSha!,
    plan,
    analysis,
    redactor: stackRedactor(deps, stack, planRedactor),
    requestedBy: request.requestedBy,
    ...(request.threadUrl ? { threadUrl: request.threadUrl } : {}),
  });
}

type Committable =
  | { status: 'codified'; plan: RemediationPlan; text: PullRequestText }
  | Extract<Codified, { status: 'nothing_to_codify' }>;

/**
 * The codify step's result, held to the stack's `.tf` files and the run's planned resources before
 * anything reaches GitHub, and the PR's text written here. A worker's answer is what a module run on that
 * worker could have written; this process's own result is held the same way. A refusal is audited and
 * logged as the security event it may be, then thrown for the person who asked.
 */
async function committableCodify(
  deps: RemediationDeps,
  stack: Stack,
  run: Run,
  request: RemediationRequest,
): Promise<Committable> {
  const codify = deps.codify ?? ((s, r, q) => codifyDrift(deps, s, r, q));
  try {
    const codified = await codify(stack, run, request);
    if (codified.status !== 'codified') return codified;
    const refused = refusedRemediationPaths(codified.plan, stack.git!.path);
    if (refused.length > 0) throw new RemediationAnswerRefusedError(refusalMessage(stack, refused), refused);
    const runPlan = await loadRunPlan(deps, stack, run);
    const planned = plannedAddresses(runPlan.plan);
    const strangers = [...new Set(codified.plan.edits.map((e) => e.address))].filter((a) => !planned.has(a));
    if (strangers.length > 0)
      throw new RemediationAnswerRefusedError(
        `the code written for this drift edits resources the plan of run ${run.id} does not have, so nothing was committed: ${strangers.slice(0, MAX_LISTED).join(', ')}. A result like this comes from a broken or tampered codify step (with workers, a worker of pool ${stack.pool}). It is in the audit as remediation_answer_refused.`,
      );
    return { ...codified, text: pullRequestTextOf(deps, stack, run, runPlan, codified.plan, request) };
  } catch (err) {
    if (!(err instanceof RemediationAnswerRefusedError)) throw err;
    const mask = (text: string) => deps.secrets.redact(text, stack.name);
    const refused = err.refused.slice(0, MAX_LISTED * 2).map((r) => ({ path: mask(r.path), why: r.why }));
    await deps.store.appendAudit({
      at: deps.now(),
      actor: request.actor,
      action: 'remediation_answer_refused',
      runId: run.id,
      stack: stack.name,
      detail: {
        pool: stack.pool,
        refused,
        count: err.refused.length,
        ...(refused.length ? {} : { error: mask(err.message) }),
      },
    });
    deps.logger.error(
      { stack: stack.name, runId: run.id, pool: stack.pool, refused, count: err.refused.length },
      `remediation refused before reaching GitHub: ${mask(err.message)}`,
    );
    throw new RemediationAnswerRefusedError(mask(err.message), refused);
  }
}

export async function openRemediationPr(
  deps: RemediationDeps,
  stack: Stack,
  run: Run,
  request: RemediationRequest,
): Promise<RemediationOutcome> {
  const refusal = remediationRefusal(stack, run);
  if (refusal) throw new RemediationUnavailableError(refusal);
  const repo = repositoryOf(stack)!;
  const git = stack.git!;
  const branch = remediationBranch(stack.name, run.fingerprint!);

  const existing = await existingPullRequest(deps, stack, run, repo, branch, request);
  if (existing) return existing;

  const codified = await committableCodify(deps, stack, run, request);
  if (codified.status === 'nothing_to_codify') return codified;
  const { plan: remediation, text } = codified;
  const changes = remediation.files.map((f) => ({ path: f.path, content: f.text }));
  await deps.github.commitToBranch(repo, {
    branch,
    parentSha: run.commitSha!,
    files: changes,
    message: text.commitMessage,
  });
  const pr = await deps.github.openPullRequest(repo, {
    head: branch,
    base: git.branch,
    title: text.title,
    body: text.body,
    labels: deps.settings.labels,
    draft: deps.settings.draft,
  });
  const record = recordOf(stack, run, repo, branch, pr, request, deps.now(), remediation);
  await deps.store.saveRemediation(record);
  await deps.store.appendAudit({
    at: deps.now(),
    actor: request.actor,
    action: 'remediation_opened',
    runId: run.id,
    stack: stack.name,
    detail: { pr: pr.number, url: pr.url, branch, codified: record.codified, leftForPerson: record.leftForPerson },
  });
  deps.logger.info(
    {
      stack: stack.name,
      runId: run.id,
      pr: pr.number,
      branch,
      codified: record.codified,
      left: record.leftForPerson,
    },
    'remediation PR opened',
  );
  return { status: 'opened', record, plan: remediation };
}

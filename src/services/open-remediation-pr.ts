/**
 * "Open remediation PR": the drift of a run written into the stack's code on a branch of its own, and a
 * pull request to accept it. The code is the one the plan ran at (a worktree of the run's commit), the
 * rewritten files must pass `terraform fmt -check` and `validate` before anything reaches GitHub, and the
 * same drift (stack and fingerprint) asked for twice links the PR already open.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Stack } from '../domain/stack.js';
import { RemediationUnavailableError, TerraformError } from '../domain/errors.js';
import { analyzePlan } from '../domain/plan/analyze.js';
import { combineRedactors } from '../domain/plan/redact.js';
import { parsePlanJson } from '../domain/plan/schema.js';
import {
  planRemediation,
  type RemediationOptions,
  type RemediationPlan,
  type RemediationSkip,
  type StackFile,
} from '../domain/remediation/plan-remediation.js';
import {
  type PullRequestText,
  remediationBranch,
  remediationPullRequestText,
} from '../domain/remediation/pull-request.js';
import type { RemediationRecord } from '../domain/remediation/record.js';
import type { Run } from '../domain/run/model.js';
import type { GitHubClient, GitHubRepository } from '../ports/github.js';
import { loadArtifact } from './artifacts.js';
import type { ServiceDeps } from './deps.js';
import { resolveStackAtCommit, type SourceDeps } from './resolve-stack-at-commit.js';

/** terraform's view of the rewritten code, from the composition root (adapters/terraform). */
export interface RemediationCodeChecks {
  /** Which attributes the provider schema lets the code set; undefined when the schema cannot be read. */
  settable(stack: Stack, signal?: AbortSignal): Promise<RemediationOptions['settable'] | undefined>;
  /** Which of the files are not in terraform's canonical format. */
  unformatted(stack: Stack, files: string[], signal?: AbortSignal): Promise<string[]>;
  /** Throws a TerraformError, with terraform's output, when the files are not fmt-clean or the stack does not validate. */
  verify(stack: Stack, files: string[], signal?: AbortSignal): Promise<void>;
}

/** What writing the drift into the code gave: the files and the PR's text, or nothing to write. */
export type Codified =
  | { status: 'codified'; plan: RemediationPlan; text: PullRequestText }
  | { status: 'nothing_to_codify'; skipped: RemediationSkip[] };

/** The terraform half of a remediation: in this process (`codifyDrift`), or on a worker of the stack's pool. */
export type Codify = (stack: Stack, run: Run, request: RemediationRequest) => Promise<Codified>;

export interface CodifyDeps
  extends Pick<ServiceDeps, 'store' | 'artifacts' | 'logger' | 'secrets'>,
    Pick<SourceDeps, 'git'> {
  checks: RemediationCodeChecks;
}

export interface RemediationDeps extends CodifyDeps, Pick<ServiceDeps, 'now'> {
  github: GitHubClient;
  settings: { labels: string[]; draft: boolean };
  /** Where the code is rewritten and checked; default here, with `checks`. */
  codify?: Codify;
}

export interface RemediationRequest {
  /** Recorded and audited: a Slack user id, or `cli`. */
  actor: string;
  /** How the PR names who asked (`@ada in Slack`). */
  requestedBy: string;
  /** The Slack thread of the alert, linked from the PR body. */
  threadUrl?: string;
  signal?: AbortSignal;
}

export type RemediationOutcome =
  | { status: 'opened'; record: RemediationRecord; plan: RemediationPlan }
  /** The same drift already has an open PR. */
  | { status: 'existing'; record: RemediationRecord }
  /** The PR of this drift was merged; the stack has not been checked since. */
  | { status: 'merged'; record: RemediationRecord }
  /** Nothing could be written into the code: everything is for a person. */
  | { status: 'nothing_to_codify'; skipped: RemediationSkip[] };

export function repositoryOf(stack: Stack): GitHubRepository | undefined {
  const [owner, name] = stack.git?.repository?.split('/') ?? [];
  return owner && name ? { owner, name } : undefined;
}

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

/**
 * The stack's `.tf` files, named by their path in the repository: the PR body and its guidance speak to
 * a reviewer looking at the repository, where `main.tf` alone could be any stack's.
 */
async function readStackFiles(dir: string, repoDir: string): Promise<StackFile[]> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.tf'))
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => ({ path: posix.join(repoDir, name), text: await readFile(join(dir, name), 'utf8') })),
  );
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

/** The rewritten code must pass terraform's own checks: nothing reaches GitHub otherwise. */
async function verifyRewrittenCode(
  deps: CodifyDeps,
  stack: Stack,
  commitSha: string,
  files: string[],
  signal?: AbortSignal,
): Promise<void> {
  try {
    await deps.checks.verify(stack, files, signal);
  } catch (err) {
    if (signal?.aborted || !(err instanceof TerraformError)) throw err;
    throw new RemediationUnavailableError(
      `the code with the drift written in does not pass terraform ${err.command} at ${commitSha.slice(0, 12)}, so nothing was pushed. If the stack validates at that commit by itself, the rewrite is at fault: please report it with this output.\n${err.stderrTail}`,
      { cause: err },
    );
  }
}

/**
 * Writes the drift of `run` into the stack's code at the commit it planned at, checks it with terraform
 * (fmt, validate, the provider schema) and writes the PR's text, with every value the stack's secrets hold
 * masked. Nothing reaches GitHub here: the caller with the token commits and opens the PR.
 */
export async function codifyDrift(
  deps: CodifyDeps,
  stack: Stack,
  run: Run,
  request: Pick<RemediationRequest, 'requestedBy' | 'threadUrl' | 'signal'>,
): Promise<Codified> {
  const git = stack.git!;
  const planJson = await loadArtifact(deps, run.id, 'plan_json');
  if (!planJson)
    throw new RemediationUnavailableError(
      `run ${run.id} has no stored plan JSON any more (artifact retention?): run /drift check ${stack.name} for a new plan`,
    );
  const plan = parsePlanJson(planJson.toString('utf8'));
  const { analysis, redactor: planRedactor } = analyzePlan(plan);

  const resolved = await resolveStackAtCommit(
    deps,
    stack,
    run.commitSha!,
    request.signal ? { signal: request.signal } : {},
  );
  // The stack's own secrets too (config vars, varFiles, read at checkout): a value the plan does not mark
  // is kept out of the code and the PR all the same, and left for a person.
  const redactor = combineRedactors([planRedactor, ...deps.secrets.forStack(stack.name)]);
  try {
    const files = await readStackFiles(resolved.stack.dir, git.path);
    // terraform runs in the stack dir, where a file is known by its name.
    const local = (path: string) => posix.basename(path);
    const settable = await deps.checks.settable(resolved.stack, request.signal);
    const remediation = planRemediation(plan, files, { redactor, ...(settable ? { settable } : {}) });
    if (remediation.edits.length === 0) return { status: 'nothing_to_codify', skipped: remediation.skipped };

    // The rewrite keeps a file's formatting: fmt-clean before must be fmt-clean after, and a file that
    // was not is not reformatted (that would bury the drift in a diff of whitespace).
    const paths = remediation.files.map((f) => local(f.path));
    const unformatted = new Set(await deps.checks.unformatted(resolved.stack, paths, request.signal));
    for (const file of remediation.files) await writeFile(join(resolved.stack.dir, local(file.path)), file.text);
    await verifyRewrittenCode(
      deps,
      resolved.stack,
      run.commitSha!,
      paths.filter((p) => !unformatted.has(p)),
      request.signal,
    );
    const text = remediationPullRequestText({
      stack: stack.name,
      fingerprint: run.fingerprint!,
      runId: run.id,
      commitSha: run.commitSha!,
      plan: remediation,
      analysis,
      redactor,
      requestedBy: request.requestedBy,
      ...(request.threadUrl ? { threadUrl: request.threadUrl } : {}),
    });
    return { status: 'codified', plan: remediation, text };
  } finally {
    await resolved
      .release()
      .catch((err: unknown) => deps.logger.warn({ stack: stack.name, err }, 'worktree release failed'));
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

  const codified = await (deps.codify ?? ((s, r, q) => codifyDrift(deps, s, r, q)))(stack, run, request);
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

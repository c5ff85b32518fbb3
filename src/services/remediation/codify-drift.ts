/**
 * The terraform half of a remediation: the drift of a run written into the stack's code at the commit it
 * planned at (a worktree of that commit), and checked with terraform (fmt, validate, the provider schema).
 * Nothing reaches GitHub here: the process with the token commits it and writes the PR's text.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Stack } from '../../domain/stack.js';
import { RemediationUnavailableError, TerraformError } from '../../domain/errors.js';
import { analyzePlan } from '../../domain/plan/analyze.js';
import type { PlanAnalysis, Redactor } from '../../domain/plan/model.js';
import { combineRedactors } from '../../domain/plan/redact.js';
import { type PlanJson, parsePlanJson } from '../../domain/plan/schema.js';
import {
  planRemediation,
  type RemediationOptions,
  type RemediationPlan,
  type RemediationSkip,
  type StackFile,
} from '../../domain/remediation/plan-remediation.js';
import type { Run } from '../../domain/run/model.js';
import { loadArtifact } from '../runtime/artifacts.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { resolveStackAtCommit, type SourceDeps } from '../source/resolve-stack-at-commit.js';

/** terraform's view of the rewritten code, from the composition root (adapters/terraform). */
export interface RemediationCodeChecks {
  /** Which attributes the provider schema lets the code set; undefined when the schema cannot be read. */
  settable(stack: Stack, signal?: AbortSignal): Promise<RemediationOptions['settable'] | undefined>;
  /** Which of the files are not in terraform's canonical format. */
  unformatted(stack: Stack, files: string[], signal?: AbortSignal): Promise<string[]>;
  /** Throws a TerraformError, with terraform's output, when the files are not fmt-clean or the stack does not validate. */
  verify(stack: Stack, files: string[], signal?: AbortSignal): Promise<void>;
}

/**
 * What writing the drift into the code gave: the rewritten files with what was codified and what was
 * left for a person, or nothing to write. The PR's text is not in it: the process that opens the PR
 * writes it from the run it knows.
 */
export type Codified =
  | { status: 'codified'; plan: RemediationPlan }
  | { status: 'nothing_to_codify'; skipped: RemediationSkip[] };

export interface CodifyRequest {
  /** How the PR names who asked (`@ada in Slack`). */
  requestedBy: string;
  /** The Slack thread of the alert, linked from the PR body. */
  threadUrl?: string;
  signal?: AbortSignal;
}

/** The terraform half of a remediation: in this process (`codifyDrift`), or on a worker of the stack's pool. */
export type Codify = (stack: Stack, run: Run, request: CodifyRequest) => Promise<Codified>;

export interface CodifyDeps
  extends Pick<ServiceDeps, 'store' | 'artifacts' | 'logger' | 'secrets'>,
    Pick<SourceDeps, 'git'> {
  checks: RemediationCodeChecks;
}

/** A drift run's plan as stored, with its masked analysis and what masks the plan's own secrets. */
export interface RunPlan {
  plan: PlanJson;
  analysis: PlanAnalysis;
  planRedactor: Redactor;
}

export async function loadRunPlan(
  deps: Pick<ServiceDeps, 'store' | 'artifacts'>,
  stack: Stack,
  run: Run,
): Promise<RunPlan> {
  const planJson = await loadArtifact(deps, run.id, 'plan_json');
  if (!planJson)
    throw new RemediationUnavailableError(
      `run ${run.id} has no stored plan JSON any more (artifact retention?): run /drift check ${stack.name} for a new plan`,
    );
  const plan = parsePlanJson(planJson.toString('utf8'));
  const { analysis, redactor: planRedactor } = analyzePlan(plan);
  return { plan, analysis, planRedactor };
}

/**
 * The plan's secrets and the stack's own (config vars, and varFiles once a checkout read them): a value
 * the plan does not mark is kept out of the code and the PR all the same, and left for a person.
 */
export function stackRedactor(deps: Pick<ServiceDeps, 'secrets'>, stack: Stack, planRedactor: Redactor): Redactor {
  return combineRedactors([planRedactor, ...deps.secrets.forStack(stack.name)]);
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

/** The rewritten code must pass terraform's own checks: nothing reaches GitHub otherwise. */
async function verifyRewrittenCode(
  deps: Pick<CodifyDeps, 'checks'>,
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
 * Writes the drift of `run` into the stack's code at the commit it planned at and checks it with
 * terraform (fmt, validate, the provider schema), with every value the stack's secrets hold masked.
 */
export async function codifyDrift(
  deps: CodifyDeps,
  stack: Stack,
  run: Run,
  request: Pick<CodifyRequest, 'signal'>,
): Promise<Codified> {
  return codifyPlan(deps, stack, run.commitSha!, await loadRunPlan(deps, stack, run), request);
}

/**
 * codifyDrift of a plan in hand: what a worker on the agent API does with the plan JSON its job brings
 * (it holds no artifact store), at the commit the run planned at.
 */
export async function codifyPlan(
  deps: Omit<CodifyDeps, 'store' | 'artifacts'>,
  stack: Stack,
  commitSha: string,
  { plan, planRedactor }: Pick<RunPlan, 'plan' | 'planRedactor'>,
  request: Pick<CodifyRequest, 'signal'>,
): Promise<Codified> {
  const git = stack.git!;
  const resolved = await resolveStackAtCommit(deps, stack, commitSha, request.signal ? { signal: request.signal } : {});
  const redactor = stackRedactor(deps, stack, planRedactor);
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
      commitSha,
      paths.filter((p) => !unformatted.has(p)),
      request.signal,
    );
    return { status: 'codified', plan: remediation };
  } finally {
    await resolved
      .release()
      .catch((err: unknown) => deps.logger.warn({ stack: stack.name, err }, 'worktree release failed'));
  }
}

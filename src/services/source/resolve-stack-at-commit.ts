import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { createRedactor, type SecretValue } from '../../domain/plan/redact.js';
import { varFileSecrets } from '../../domain/stack-secrets.js';
import type { Stack } from '../../domain/stack.js';
import type { GitSources } from '../../ports/git.js';
import type { ServiceDeps } from '../runtime/deps.js';

export interface SourceDeps {
  git: GitSources;
  /** Where a Git stack's varFile values are registered as secrets, once its checkout can be read. */
  secrets?: Pick<ServiceDeps['secrets'], 'add'>;
}

/** A stack pointed into a checkout of one commit; `release()` removes the checkout. */
export interface ResolvedStack {
  stack: Stack;
  /** Set for a Git-sourced stack: the commit its `dir` holds. */
  commitSha?: string;
  release(): Promise<void>;
}

/**
 * A local stack as it is; a Git-sourced one in a fresh worktree of `sha`, `dir` and varFiles inside it.
 * The varFiles' values are secrets before terraform first reads them (a failed validation quotes them).
 */
export async function resolveStackAtCommit(
  deps: SourceDeps,
  stack: Stack,
  sha: string,
  options: { signal?: AbortSignal } = {},
): Promise<ResolvedStack> {
  if (!stack.git) return { stack, release: async () => undefined };
  const worktree = await deps.git.checkout(stack.git).checkout(sha, options);
  const dir = join(worktree.dir, stack.git.path);
  const varFiles = stack.git.varFiles.map((f) => (isAbsolute(f) ? f : resolve(dir, f)));
  if (deps.secrets) await registerVarFileSecrets(deps.secrets, stack.name, varFiles);
  return { stack: { ...stack, dir, varFiles, commitSha: sha }, commitSha: sha, release: worktree.release };
}

async function registerVarFileSecrets(
  secrets: NonNullable<SourceDeps['secrets']>,
  stack: string,
  paths: readonly string[],
): Promise<void> {
  const values = new Set<SecretValue>();
  for (const path of paths) {
    // A missing file is terraform's to report (naming it); there is nothing in it to mask.
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined) varFileSecrets({ path, text }, values);
  }
  if (values.size > 0) secrets.add(stack, createRedactor(values));
}

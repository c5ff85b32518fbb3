import { z } from 'zod';
import type { ServiceDeps } from '../runtime/deps.js';
import { loadJson } from './stored-analysis.js';

const StoredCommits = z.object({
  webUrl: z.string().optional(),
  commits: z.array(
    z.object({
      sha: z.string(),
      author: z.string(),
      title: z.string(),
      prNumber: z.number().int().optional(),
      prUrl: z.string().optional(),
      commitUrl: z.string().optional(),
    }),
  ),
});

/** The commits a pending change brings (stored by check-stack-from-source); undefined when none were listed. */
export async function loadCommits(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  runId: string,
): Promise<z.infer<typeof StoredCommits>['commits'] | undefined> {
  const stored = await loadJson(deps, runId, 'commits', StoredCommits);
  return stored?.commits.map(({ sha, author, title, prNumber, prUrl, commitUrl }) => ({
    sha,
    author,
    title,
    ...(prNumber !== undefined ? { prNumber } : {}),
    ...(prUrl ? { prUrl } : {}),
    ...(commitUrl ? { commitUrl } : {}),
  }));
}

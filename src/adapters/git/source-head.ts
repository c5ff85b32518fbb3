import type { CheckoutSourceHead } from '../../config/discover-in-source.js';
import type { GitSourceRef, GitSources, Worktree } from '../../ports/git.js';
import { createGitSources, type GitSourcesOptions } from './git-sources.js';

/** The head of a source's branch, fetched, as a worktree of the clone `sources` keeps for it. */
export function headOf(sources: GitSources): (source: GitSourceRef) => Promise<Worktree> {
  return async (source) => {
    const checkout = sources.checkout(source);
    const head = await checkout.fetchHead();
    return checkout.checkout(head.sha);
  };
}

/**
 * What `discover` on `source.git` looks in when a command loads its config: the branch head checked out
 * from the clone that checks use (`<dataDir>/git/`), so discovery and checks read the same repository.
 */
export function sourceHeadCheckouts(options: Omit<GitSourcesOptions, 'dataDir'>): CheckoutSourceHead {
  const byDataDir = new Map<string, GitSources>();
  return async (source, dataDir) => {
    let sources = byDataDir.get(dataDir);
    if (!sources) byDataDir.set(dataDir, (sources = createGitSources({ ...options, dataDir })));
    return headOf(sources)(source);
  };
}

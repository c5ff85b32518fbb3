import { createGitSources } from '../../adapters/git/git-sources.js';
import { openStore } from '../../adapters/store/open-store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { CommitInfo, GitSourceRef } from '../../ports/git.js';
import { baselineStack } from '../../services/operator/baseline.js';

/** The commit a `source.git` stack's baseline names: `commit` (expanded and checked in its repository) or the branch head. */
export async function baselineCommitFromGit(
  source: GitSourceRef,
  commit: string | undefined,
  options: { dataDir: string; env: Record<string, string | undefined> },
): Promise<CommitInfo> {
  const checkout = createGitSources(options).checkout(source);
  const head = await checkout.fetchHead();
  return commit ? checkout.commit(commit) : head;
}

/** `driftgate baseline STACK`: records the commit as last applied, on the config's store. */
export async function recordBaseline(
  config: Pick<DriftgateConfig, 'dataDir' | 'store'>,
  stack: string,
  baseline: { sha: string; source: 'argument' | 'branch_head' },
  actor: string,
): Promise<{ previous?: string }> {
  const store = await openStore(config);
  try {
    return await baselineStack({ store, now: () => new Date() }, stack, baseline, actor);
  } finally {
    await store.close();
  }
}

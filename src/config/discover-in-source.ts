import { join, relative, sep } from 'node:path';
import { ConfigError, type ConfigIssue, GitError } from '../domain/errors.js';
import type { Stack } from '../domain/stack.js';
import { discoverStacks, type DiscoveryResult } from './discover.js';
import type { ConfigFile, DiscoverEntry, GitSourceConfig } from './schema.js';

/** A checkout of one commit of a Git source; `release()` removes it. */
export interface SourceTree {
  dir: string;
  sha: string;
  release(): Promise<void>;
}

/**
 * Checks out the head of a source's branch, from the clone under `<dataDir>/git/` that checks use. The
 * entry points pass it in (adapters/git/source-head.ts): the config reads files, and knows no adapter.
 */
export type CheckoutSourceHead = (
  source: { url: string; branch: string; tokenEnv?: string },
  dataDir: string,
) => Promise<SourceTree>;

/** What discovery found, in the config's dir or in a Git source. */
export interface Discovery extends DiscoveryResult {
  /** In a Git source: where the rules looked, for messages (the branch of the repository, the subpath). */
  where?: string;
  /** In a Git source: the checkout the stacks were found in, while the caller reads it; unset when it failed. */
  tree?: SourceTree;
}

/**
 * `discover` with `source.git`: the rules' globs are matched in a checkout of the branch head (below
 * `subpath`) as they would be in a local copy of the repository, and each stack found is written as its
 * `dir` under `stacks` would be. The caller releases the tree once it has read what it needs in it.
 */
export async function discoverInSource(
  rules: readonly DiscoverEntry[],
  git: GitSourceConfig,
  checkoutHead: CheckoutSourceHead,
  dataDir: string,
): Promise<Discovery> {
  const where = `branch ${git.branch} of ${git.url}${git.subpath ? `, below ${git.subpath}` : ''}`;
  let tree: SourceTree;
  try {
    const ref = { url: git.url, branch: git.branch, ...(git.tokenEnv ? { tokenEnv: git.tokenEnv } : {}) };
    tree = await checkoutHead(ref, dataDir);
  } catch (err) {
    return { stacks: [], issues: checkoutIssues(err, git), warnings: [], unmatched: [], where };
  }
  const root = join(tree.dir, git.subpath ?? '.');
  const found = await discoverStacks(rules, root);
  const issues = [...found.issues];
  const stacks = found.stacks.flatMap((stack) => {
    const inSource = relative(root, stack.dir).split(sep).join('/');
    if (!inSource.startsWith('..')) return [{ ...stack, inSource }];
    issues.push({
      path: `discover[${stack.rule}].glob`,
      message: `found ${inSource}, outside the repository ${git.url}${git.subpath ? ` below ${git.subpath}` : ''}: with source.git, globs are paths inside it`,
    });
    return [];
  });
  // Messages name the place in the repository, not the checkout that is gone once the config is loaded.
  const inRepository = (list: ConfigIssue[]) =>
    list.map((i) => ({ ...i, message: i.message.replaceAll(`${root}${sep}`, '').replaceAll(root, '.') }));
  return {
    stacks,
    issues: inRepository(issues),
    warnings: inRepository(found.warnings),
    unmatched: found.unmatched,
    where,
    tree,
  };
}

/**
 * `discover` in the config's dir, or with `source.git` in a checkout of its branch head (the tree, which
 * the caller releases). Without a way to check out, rules on a Git source find nothing.
 */
export async function discoverFor(
  data: ConfigFile,
  baseDir: string,
  checkoutHead: CheckoutSourceHead | undefined,
  dataDir: string,
): Promise<Discovery> {
  const git = data.source?.git;
  if (!git) return discoverStacks(data.discover, baseDir);
  if (!checkoutHead || data.discover.length === 0) return { stacks: [], issues: [], warnings: [], unmatched: [] };
  return discoverInSource(data.discover, git, checkoutHead, dataDir);
}

/**
 * The stacks whose files can be read now: local ones, and those of the Git source checked out for
 * discovery, in that checkout. A stack from another repository is read only in its checkout at a check.
 */
export function stacksOnDisk(
  stacks: readonly Stack[],
  source: GitSourceConfig | undefined,
  tree: SourceTree | undefined,
): Stack[] {
  return stacks.flatMap((stack) => {
    if (!stack.git) return [stack];
    if (!tree || !source || stack.git.url !== source.url || stack.git.branch !== source.branch) return [];
    return [{ ...stack, dir: join(tree.dir, stack.git.path) }];
  });
}

/** Why the branch could not be checked out, at the key to fix. */
function checkoutIssues(err: unknown, git: GitSourceConfig): ConfigIssue[] {
  if (err instanceof ConfigError) return err.issues;
  if (err instanceof GitError && err.reason === 'branch_not_found')
    return [
      {
        path: 'source.git.branch',
        message: `branch "${git.branch}" does not exist in ${err.url}: discover rules are matched in a checkout of it; set source.git.branch to a branch of the repository`,
      },
    ];
  const why = err instanceof Error ? err.message : String(err);
  return [
    {
      path: 'source.git.url',
      message: `discover rules are matched in a checkout of branch ${git.branch}, which failed: ${why}`,
    },
  ];
}

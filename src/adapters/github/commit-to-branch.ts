import type { CommitToBranchInput } from '../../ports/github.js';
import { GitHubError } from './github-error.js';
import type { GitHubOctokit } from './octokit.js';

/** Runs one API call as `operation`, turning a failure into a GitHubError; `missing` explains a 404. */
export type Step = <T>(operation: string, call: () => Promise<T>, missing?: string) => Promise<T>;

type RepoParams = { owner: string; repo: string };

/**
 * The git data API's five steps: read the parent, a blob per file, a tree on the parent's tree (so only
 * these files change), a commit, then the branch created at it, or force-moved there when it exists.
 */
export async function commitToBranch(
  octokit: GitHubOctokit,
  repo: RepoParams,
  input: CommitToBranchInput,
  step: Step,
): Promise<{ sha: string }> {
  const { branch, parentSha } = input;
  const short = parentSha.slice(0, 7);
  const parent = await step(
    `read commit ${short} (parent of ${branch})`,
    () => octokit.rest.git.getCommit({ ...repo, commit_sha: parentSha }),
    `commit ${parentSha} does not exist there`,
  );
  const tree: { path: string; mode: '100644'; type: 'blob'; sha: string }[] = [];
  for (const file of input.files) {
    const blob = await step(`create blob for ${file.path}`, () =>
      octokit.rest.git.createBlob({ ...repo, content: file.content, encoding: 'utf-8' }),
    );
    tree.push({ path: file.path, mode: '100644', type: 'blob', sha: blob.data.sha });
  }
  const newTree = await step(`create tree for ${branch}`, () =>
    octokit.rest.git.createTree({ ...repo, base_tree: parent.data.tree.sha, tree }),
  );
  const commit = await step(`create commit on ${branch}`, () =>
    octokit.rest.git.createCommit({ ...repo, message: input.message, tree: newTree.data.sha, parents: [parentSha] }),
  );
  const sha = commit.data.sha;
  try {
    await step(`create branch ${branch}`, () =>
      octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha }),
    );
  } catch (err) {
    // 422 is GitHub's answer for a ref that exists: the branch is driftgate's own, so it is moved.
    if (!(err instanceof GitHubError) || err.status !== 422) throw err;
    await step(`move branch ${branch}`, () =>
      octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha, force: true }),
    );
  }
  return { sha };
}

import type { GitCheckout, GitSources } from '../../ports/git.js';
import type { Sandbox } from '../terraform/run-as.js';

/**
 * Git sources whose worktrees terraform gets as a copy in its sandbox (the run-as user's dir, or the dir
 * shared with the terraform container): the clone, its token and its hooks stay in driftgate's data dir,
 * and git never runs where terraform writes. The stack dirs a plan resolves are then inside the copy.
 */
export function sandboxedCheckouts(git: GitSources, sandbox: Pick<Sandbox, 'takeIn'>): GitSources {
  return {
    checkout(source) {
      const checkout = git.checkout(source);
      const wrapped: GitCheckout = {
        ...checkout,
        async checkout(sha, options) {
          const worktree = await checkout.checkout(sha, options);
          // The copy is all terraform needs: the worktree goes as soon as it is made.
          const copy = await sandbox.takeIn(worktree.dir).finally(() => worktree.release());
          return { dir: copy.dir, sha: worktree.sha, release: copy.remove };
        },
      };
      return wrapped;
    },
  };
}

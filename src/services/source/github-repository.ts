import type { Stack } from '../../domain/stack.js';
import type { GitHubRepository } from '../../ports/github.js';

/** The GitHub repository a stack's code is in (`source.git.repository`, `owner/name`), when it names one. */
export function repositoryOf(stack: Stack): GitHubRepository | undefined {
  const [owner, name] = stack.git?.repository?.split('/') ?? [];
  return owner && name ? { owner, name } : undefined;
}

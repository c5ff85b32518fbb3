/**
 * A worker pool: where a stack's plans and applies run (a runner inside the account or cluster that holds
 * that environment's cloud credentials). Names become queue names, so they are kept to a safe alphabet.
 */
export const DEFAULT_POOL = 'default';

export const POOL_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

export const POOL_NAME_RULE =
  'lowercase letters, digits and dashes, at most 40, starting and ending with a letter or digit';

export function isPoolName(name: string): boolean {
  return POOL_NAME_PATTERN.test(name);
}

import type { CommitInfo } from '../../ports/git.js';

/** The `--format` of `git log` that parseCommitInfo reads: fields split by NUL. */
export const COMMIT_FORMAT = '%H%x00%an%x00%ae%x00%cI%x00%s';

/** GitHub's merge commit ("Merge pull request #12 from x/y") or squash merge ("Fix tags (#34)"). */
export function pullRequestNumber(title: string): number | undefined {
  const match = /^Merge pull request #(\d+)\b/.exec(title) ?? /\(#(\d+)\)\s*$/.exec(title);
  return match ? Number(match[1]) : undefined;
}

export function parseCommitInfo(stdout: string): CommitInfo | undefined {
  const [sha, author, authorEmail, committed, title] = stdout.replace(/\n$/, '').split('\0');
  if (!sha || author === undefined || authorEmail === undefined || !committed || title === undefined) return undefined;
  const prNumber = pullRequestNumber(title);
  return {
    sha,
    author,
    authorEmail,
    title,
    committedAt: new Date(committed),
    ...(prNumber !== undefined ? { prNumber } : {}),
  };
}

/** `git log --format=${COMMIT_FORMAT}%x1e`: one record per commit, ended by a record separator. */
export function parseCommitLog(stdout: string): CommitInfo[] {
  return stdout
    .split('\x1e')
    .map((record) => parseCommitInfo(record.replace(/^\n/, '')))
    .filter((info): info is CommitInfo => info !== undefined);
}

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/** Fixed identities and dates: commits in tests are reproducible and never read the machine's git config. */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ada Lovelace',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Lovelace',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_AUTHOR_DATE: '2024-05-01T10:00:00Z',
  GIT_COMMITTER_DATE: '2024-05-01T10:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export interface CommitAuthor {
  name: string;
  email: string;
}

export interface TestRepo {
  /** Temp dir holding `origin.git` and the `work` clone. */
  dir: string;
  /** `file://` URL of the bare origin. */
  url: string;
  /**
   * Writes files (path -> content) in the work tree, commits them on `main` and pushes; returns the sha.
   * The author is Ada Lovelace unless `author` names another.
   */
  commit(files: Record<string, string>, message: string, author?: CommitAuthor): Promise<string>;
  /** Removes paths (files or dirs) from the work tree, commits that on `main` and pushes; returns the sha. */
  remove(paths: string[], message: string): Promise<string>;
  /** `count` commits by Ada on `main` (`Step 0`, `Step 1`, …, each changing `file`), pushed at once; returns the last sha. */
  commitSteps(count: number, file: string): Promise<string>;
  /** The same on a new branch started from the work tree's `main`, pushed as that branch; the work tree goes back to `main`. */
  commitOnBranch(branch: string, files: Record<string, string>, message: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** A bare repository as `origin` and a clone to commit from, made with the real git. */
export async function makeTestRepo(): Promise<TestRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'driftgate-git-'));
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  const git = (args: string[], cwd = dir) =>
    execa('git', args, { cwd, env: { PATH: process.env.PATH, HOME: dir, ...GIT_ENV }, extendEnv: false });
  await git(['init', '--bare', '--quiet', '--initial-branch=main', origin]);
  await git(['init', '--quiet', '--initial-branch=main', work]);
  await git(['remote', 'add', 'origin', origin], work);
  /** Writes the files in the work tree, commits them and pushes the commit to `ref` of origin. */
  const commitAndPush = async (files: Record<string, string>, message: string, ref: string, author?: CommitAuthor) => {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), content);
    }
    await git(['add', '-A'], work);
    await git(
      ['commit', '--quiet', ...(author ? [`--author=${author.name} <${author.email}>`] : []), '-m', message],
      work,
    );
    await git(['push', '--quiet', 'origin', `HEAD:${ref}`], work);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  };
  return {
    dir,
    url: `file://${origin}`,
    commit: (files, message, author) => commitAndPush(files, message, 'main', author),
    async remove(paths, message) {
      await git(['rm', '-r', '--quiet', '--', ...paths], work);
      return commitAndPush({}, message, 'main');
    },
    async commitSteps(count, file) {
      await mkdir(dirname(join(work, file)), { recursive: true });
      for (let i = 0; i < count; i += 1) {
        await writeFile(join(work, file), `# step ${i}\n`);
        await git(['commit', '--quiet', '-am', `Step ${i}`], work);
      }
      await git(['push', '--quiet', 'origin', 'HEAD:main'], work);
      return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    },
    async commitOnBranch(branch, files, message) {
      await git(['checkout', '--quiet', '-b', branch, 'main'], work);
      try {
        return await commitAndPush(files, message, `refs/heads/${branch}`);
      } finally {
        await git(['checkout', '--quiet', 'main'], work);
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A real bare repository with a first commit on main, the GitHub emulator serving it, and fast clients. */
import { join } from 'node:path';
import { execa } from 'execa';
import { createGitHubClient, type GitHubClientOptions, type GitHubError } from '../../../src/adapters/github/client.js';
import type { GitHubSettings } from '../../../src/adapters/github/env.js';
import type { GitHubClient, GitHubRepository } from '../../../src/ports/github.js';
import {
  startGitHubEmulator,
  type GitHubEmulator,
  type GitHubEmulatorOptions,
} from '../../helpers/github-emulator/index.js';
import { makeTestRepo, type TestRepo } from '../git/git-repo.js';

/** Waits in tests: milliseconds where production waits seconds. */
export const FAST: GitHubClientOptions = { retryBaseMs: 1, rateLimitSecondMs: 5, writeSpacingMs: 0 };

export const SEED = {
  'README.md': '# infrastructure\n',
  'stacks/db/main.tf': 'resource "terraform_data" "db" {}\n',
  'stacks/web/main.tf': 'resource "terraform_data" "web" {}\n',
};

/** The error a call failed with; a call that succeeds fails the test. */
export const rejection = (call: Promise<unknown>): Promise<GitHubError> =>
  call.then(
    () => Promise.reject(new Error('expected the call to fail')),
    (err: unknown) => err as GitHubError,
  );

export interface LogLine {
  obj: object;
  msg?: string;
}

export interface GitHubFixture {
  testRepo: TestRepo;
  emulator: GitHubEmulator;
  repo: GitHubRepository;
  /** main's head after the seed commit. */
  base: string;
  logs: LogLine[];
  /** A token client against the emulator (FAST waits, logs into `logs`). */
  client(settings?: Partial<GitHubSettings>, options?: GitHubClientOptions): GitHubClient;
  /** `git` in the bare repository the emulator serves; stdout trimmed. */
  git(...args: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeGitHubFixture(options: Partial<GitHubEmulatorOptions> = {}): Promise<GitHubFixture> {
  const testRepo = await makeTestRepo();
  const base = await testRepo.commit(SEED, 'Seed');
  const repoDir = join(testRepo.dir, 'origin.git');
  const emulator = await startGitHubEmulator({ repoDir, ...options });
  const logs: LogLine[] = [];
  const logger = {
    warn: (obj: object, msg?: string) => void logs.push({ obj, ...(msg === undefined ? {} : { msg }) }),
  };
  return {
    testRepo,
    emulator,
    repo: { owner: emulator.owner, name: emulator.repo },
    base,
    logs,
    client: (settings = {}, clientOptions = {}) =>
      createGitHubClient(
        { apiUrl: emulator.apiUrl, auth: { type: 'token', token: emulator.token }, ...settings },
        { logger, ...FAST, ...clientOptions },
      ),
    git: async (...args) =>
      (
        await execa('git', args, {
          env: { PATH: process.env.PATH, GIT_DIR: repoDir, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
          extendEnv: false,
        })
      ).stdout.trim(),
    async cleanup() {
      await emulator.close();
      await testRepo.cleanup();
    },
  };
}

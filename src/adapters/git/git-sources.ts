import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError } from '../../domain/errors.js';
import type { GitCheckout, GitSourceRef, GitSources } from '../../ports/git.js';
import type { GitExec } from './exec-git.js';
import { createGitCheckout, type GitLogger } from './git-checkout.js';

export interface GitSourcesOptions {
  dataDir: string;
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  logger?: GitLogger;
  exec?: GitExec;
}

/** A readable and unique directory name for a repository and branch. */
function cloneDirName(source: GitSourceRef): string {
  const hash = createHash('sha256').update(`${source.url}\n${source.branch}`).digest('hex').slice(0, 12);
  const readable = source.url
    .replace(/^[a-z]+:\/\/([^@/]*@)?/i, '')
    .replace(/\.git$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(-40);
  return `${readable}-${hash}`;
}

/** One GitCheckout per repository and branch, each with its clone under `<dataDir>/git/`. */
export function createGitSources(options: GitSourcesOptions): GitSources {
  const byKey = new Map<string, GitCheckout>();
  return {
    checkout(source) {
      const key = `${source.url}\n${source.branch}\n${source.tokenEnv ?? ''}`;
      const known = byKey.get(key);
      if (known) return known;
      const token = source.tokenEnv ? options.env[source.tokenEnv] : undefined;
      if (source.tokenEnv && !token) {
        throw new ConfigError([
          {
            path: 'source.git.tokenEnv',
            message: `environment variable ${source.tokenEnv} is not set (it should hold the token for ${source.url})`,
          },
        ]);
      }
      const checkout = createGitCheckout({
        url: source.url,
        branch: source.branch,
        dir: join(options.dataDir, 'git', cloneDirName(source)),
        env: options.env,
        ...(token ? { token } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.exec ? { exec: options.exec } : {}),
      });
      byKey.set(key, checkout);
      return checkout;
    },
  };
}

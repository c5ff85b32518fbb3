import { isAbsolute, posix } from 'node:path';
import type { ConfigIssue } from '../domain/errors.js';
import { githubRepositoryName } from '../domain/git/repository-web-url.js';
import type { DiscoveredStack } from './discover.js';
import type { ConfigFile, DriftgateConfig, GitSourceConfig } from './schema.js';
import type { StackGitSource } from '../domain/stack.js';
import { fillPlaceholders } from './stack-placeholders.js';

/** The stack's own `source`, else the top-level one; undefined for a local stack. */
function gitSourceOf(file: ConfigFile, index: number): GitSourceConfig | undefined {
  return (file.stacks[index]?.source ?? file.source)?.git;
}

/** `dir` and `subpath` must stay inside the repository: no absolute paths, no `..` out of it. */
export function gitSourceIssues(file: ConfigFile): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const outside = (p: string) => isAbsolute(p) || posix.normalize(p.replaceAll('\\', '/')).startsWith('..');
  if (file.source?.git.subpath && outside(file.source.git.subpath)) {
    issues.push({ path: 'source.git.subpath', message: 'must be a relative path inside the repository' });
  }
  file.stacks.forEach((entry, i) => {
    const git = gitSourceOf(file, i);
    if (!git) return;
    if (entry.source?.git.subpath && outside(entry.source.git.subpath)) {
      issues.push({
        path: `stacks[${i}].source.git.subpath`,
        message: 'must be a relative path inside the repository',
      });
    }
    if (outside(posix.join(git.subpath ?? '.', entry.dir.replaceAll('\\', '/')))) {
      issues.push({ path: `stacks[${i}].dir`, message: `must be a relative path inside the repository ${git.url}` });
    }
  });
  return issues;
}

/**
 * Marks the stacks that come from Git (see Stack.git): explicit ones with a source, and those discovery
 * found in a checkout of `source.git`. resolveConfig made their `dir` absolute against the config file's
 * dir, which means nothing for them; it is kept only so that code unaware of Git sources still gets a
 * string, and is replaced at checkout.
 */
export function withGitSources(
  file: ConfigFile,
  config: DriftgateConfig,
  discovered: readonly DiscoveredStack[] = [],
): DriftgateConfig {
  /** Each Git stack's source, and its dir and varFiles as written (a discovered one's, as if listed). */
  const written = new Map<string, { git: GitSourceConfig; dir: string; varFiles: readonly string[] }>();
  file.stacks.forEach((entry, i) => {
    const git = gitSourceOf(file, i);
    if (git) written.set(entry.name, { git, dir: entry.dir, varFiles: entry.varFiles ?? [] });
  });
  const top = file.source?.git;
  for (const found of discovered) {
    if (!top || found.inSource === undefined || written.has(found.name)) continue;
    written.set(found.name, { git: top, dir: found.inSource, varFiles: file.discover[found.rule]?.varFiles ?? [] });
  }
  const stacks = config.stacks.map((stack) => {
    const entry = written.get(stack.name);
    if (!entry) return stack;
    const { git } = entry;
    const repository = git.repository ?? githubRepositoryName(git.url);
    const source: StackGitSource = {
      url: git.url,
      branch: git.branch,
      ...(git.tokenEnv ? { tokenEnv: git.tokenEnv } : {}),
      ...(repository ? { repository } : {}),
      path: posix.normalize(posix.join(git.subpath ?? '.', entry.dir.replaceAll('\\', '/'))),
      varFiles: fillPlaceholders([...entry.varFiles], {
        name: stack.name,
        dir: entry.dir,
        ...(stack.environment !== undefined ? { environment: stack.environment } : {}),
      }),
    };
    return { ...stack, git: source };
  });
  return { ...config, stacks, ...(file.source ? { source: file.source } : {}) };
}

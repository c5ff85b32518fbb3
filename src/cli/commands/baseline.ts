import { parseArgs } from 'node:util';
import { userInfo } from 'node:os';
import { createGitSources } from '../../adapters/git/git-sources.js';
import { openStore } from '../../adapters/store/open-store.js';
import { loadConfig } from '../../config/load.js';
import type { Stack } from '../../domain/stack.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { selectStacks } from '../select-stacks.js';

/** The commit to record: `--commit` (expanded and checked against the repository) or the branch head. */
async function baselineCommit(stack: Stack, commit: string | undefined, dataDir: string, env: CliIo['env']) {
  if (!stack.git) {
    if (!commit) throw new UsageError(`stack ${stack.name} is not from Git: name the commit with --commit SHA`);
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit))
      throw new UsageError('--commit must be a full commit sha for a stack that is not from Git');
    return { sha: commit };
  }
  const checkout = createGitSources({ dataDir, env }).checkout(stack.git);
  const head = await checkout.fetchHead();
  return commit ? checkout.commit(commit) : head;
}

/** A commit sha as git abbreviates it: 7 to 64 hex characters (sha-1 is 40, sha-256 64). */
function checkCommitArgument(commit: string): void {
  if (!/^[0-9a-fA-F]*$/.test(commit))
    throw new UsageError(`--commit "${commit}" is not a commit sha: only hex digits (0-9, a-f)`);
  if (commit.length < 7 || commit.length > 64)
    throw new UsageError(
      `--commit "${commit}" has ${commit.length} characters: a commit sha has 7 to 64 hex characters`,
    );
}

/**
 * `driftgate baseline STACK`: records a commit as the one last applied to a stack that was applied outside
 * driftgate, so that later plans tell drift (changes at that commit) from merged changes not yet applied.
 */
export async function baselineCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { commit: { type: 'string' }, config: { type: 'string', short: 'c' } },
  });
  if (positionals.length !== 1) throw new UsageError('name exactly one stack to baseline');
  if (values.commit !== undefined) checkCommitArgument(values.commit);
  const config = await loadConfig(configOptions(values.config, io));
  const [stack] = selectStacks(config.stacks, positionals);
  const commit = await baselineCommit(stack!, values.commit?.toLowerCase(), config.dataDir, io.env);
  const store = await openStore(config);
  try {
    const previous = (await store.upsertStack(stack!.name)).lastAppliedCommit;
    await store.setLastAppliedCommit(stack!.name, commit.sha);
    await store.appendAudit({
      at: new Date(),
      actor: `cli:${io.env.USER ?? userInfo().username}`,
      action: 'baseline',
      stack: stack!.name,
      detail: { commit: commit.sha, previous: previous ?? null, source: values.commit ? 'argument' : 'branch_head' },
    });
    const title = 'title' in commit ? ` (${commit.title})` : '';
    io.stdout.write(`${stack!.name}: baseline set to ${commit.sha}${title}${previous ? `, was ${previous}` : ''}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

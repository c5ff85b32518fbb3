import { parseArgs } from 'node:util';
import { baselineCommitFromGit, recordBaseline } from '../../app/cli/baseline.js';
import { loadConfig } from '../../config/load.js';
import type { Stack } from '../../domain/stack.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { selectStacks } from '../select-stacks.js';
import { cliActor } from '../cli-actor.js';

/** A stack not from Git names its commit with `--commit`, in full: there is no repository to expand it in. */
function commitOutsideGit(stack: Stack, commit: string | undefined): { sha: string } {
  if (!commit) throw new UsageError(`stack ${stack.name} is not from Git: name the commit with --commit SHA`);
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit))
    throw new UsageError('--commit must be a full commit sha for a stack that is not from Git');
  return { sha: commit };
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
  const commit = values.commit?.toLowerCase();
  const baseline = stack!.git
    ? await baselineCommitFromGit(stack!.git, commit, { dataDir: config.dataDir, env: io.env })
    : commitOutsideGit(stack!, commit);
  const { previous } = await recordBaseline(
    config,
    stack!.name,
    { sha: baseline.sha, source: values.commit ? 'argument' : 'branch_head' },
    cliActor(io),
  );
  const title = 'title' in baseline ? ` (${baseline.title})` : '';
  io.stdout.write(`${stack!.name}: baseline set to ${baseline.sha}${title}${previous ? `, was ${previous}` : ''}\n`);
  return 0;
}

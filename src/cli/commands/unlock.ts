import { parseArgs } from 'node:util';
import { unlockFromTerminal } from '../../app/cli/unlock.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { selectStacks } from '../select-stacks.js';
import { cliActor } from '../cli-actor.js';

/**
 * `driftgate unlock STACK`: lifts the block left by an interrupted apply and breaks a stale stack lock.
 * Only after a person has looked at the stack's real state, which is why it is never automatic.
 */
export async function unlockCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { config: { type: 'string', short: 'c' } },
  });
  if (positionals.length !== 1) throw new UsageError('name exactly one stack to unlock');
  const config = await loadConfig(configOptions(values.config, io));
  const [stack] = selectStacks(config.stacks, positionals);
  const actor = cliActor(io);
  const unlocked = await unlockFromTerminal(config, stack!, actor);
  if (unlocked.status === 'refused') {
    io.stderr.write(
      unlocked.lock
        ? `${stack!.name}: run ${unlocked.lock.runId} is running in a driftgate process right now; its lock is not stale (it lapses by itself defaults.lockTtl after that process stops). Nothing was changed.\n`
        : `${stack!.name}: ${unlocked.message} Nothing was changed.\n`,
    );
    return 1;
  }
  const { blockedReason, brokenLock } = unlocked;
  io.stdout.write(
    blockedReason || brokenLock
      ? `${stack!.name}: unlocked${blockedReason ? ` (was blocked: ${blockedReason})` : ''}${brokenLock ? ` (broke the lock of run ${brokenLock.runId})` : ''}\n`
      : `${stack!.name}: was neither blocked nor locked\n`,
  );
  return 0;
}

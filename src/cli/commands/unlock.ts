import { parseArgs } from 'node:util';
import { userInfo } from 'node:os';
import { openStore } from '../../adapters/store/open-store.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { selectStacks } from '../select-stacks.js';

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
  const store = await openStore(config);
  try {
    const record = await store.getStack(stack!.name);
    const lock = await store.breakLock(stack!.name);
    if (record?.blockedReason) await store.unblockStack(stack!.name);
    await store.appendAudit({
      at: new Date(),
      actor: `cli:${io.env.USER ?? userInfo().username}`,
      action: 'unlock',
      stack: stack!.name,
      detail: { blockedReason: record?.blockedReason ?? null, brokenLock: lock?.runId ?? null },
    });
    io.stdout.write(
      record?.blockedReason || lock
        ? `${stack!.name}: unlocked${record?.blockedReason ? ` (was blocked: ${record.blockedReason})` : ''}${lock ? ` (broke the lock of run ${lock.runId})` : ''}\n`
        : `${stack!.name}: was neither blocked nor locked\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

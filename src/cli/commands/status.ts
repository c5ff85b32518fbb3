import { parseArgs } from 'node:util';
import { readStatus } from '../../app/cli/status.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { useColor } from '../color.js';
import { configOptions } from '../config-options.js';
import { renderStatusReport, statusExitCode, statusReportJson } from '../render/status-report.js';
import { selectStacks } from '../select-stacks.js';
import { DEAD_SHOWN, deadOutboxJson, renderDeadOutbox } from '../render/outbox-report.js';

/**
 * `driftgate status`: where each stack stands, as `/drift status` and the App Home see it, read from the
 * store alone: no plan, no terraform, so it answers in a moment beside a running `serve`.
 */
export async function statusCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, config: { type: 'string', short: 'c' } },
  });
  const config = await loadConfig(configOptions(values.config, io));
  const stacks = positionals.length ? selectStacks(config.stacks, positionals) : config.stacks;
  const { states, dead, now } = await readStatus(config, stacks, { env: io.env, deadShown: DEAD_SHOWN });
  const outbox = renderDeadOutbox(dead, now, config.defaults.outboxDeadRetention);
  io.stdout.write(
    values.json
      ? `${JSON.stringify({ ...statusReportJson(states, now), outbox: deadOutboxJson(dead) }, null, 2)}\n`
      : `${renderStatusReport(states, now, { color: useColor(io) })}${outbox.map((l) => `${l}\n`).join('')}`,
  );
  return statusExitCode(states);
}

import { parseArgs } from 'node:util';
import { openPoolTokenAdmin } from '../../app/cli/pool-tokens.js';
import { loadConfig } from '../../config/load.js';
import { ConfigError } from '../../domain/errors.js';
import { configuredPools } from '../../domain/pool/configured-pools.js';
import { isPoolName, POOL_NAME_RULE } from '../../domain/pool/pool-name.js';
import type { PoolToken } from '../../domain/pool/pool-token.js';
import { cliActor } from '../cli-actor.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';

const SUBCOMMANDS = ['create', 'list', 'revoke'] as const;

/**
 * `driftgate pool token create|list|revoke`: the tokens workers present to the control plane's agent
 * API. A token is shown once, when it is created; the store keeps its sha256 only.
 */
export async function poolCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      name: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [noun, verb, ...rest] = positionals;
  if (noun !== 'token' || !SUBCOMMANDS.includes(verb as (typeof SUBCOMMANDS)[number]))
    throw new UsageError(`say what to do: pool token ${SUBCOMMANDS.join('|')}`);
  const config = await loadConfig(configOptions(values.config, io));
  if (config.runners?.type !== 'workers')
    throw new ConfigError(
      [
        {
          path: 'runners.type',
          message:
            'pool tokens are for the workers of runners: {type: workers}; with local runners serve runs terraform itself and no worker needs one',
        },
      ],
      config.file,
    );
  const by = cliActor(io);
  const tokens = await openPoolTokenAdmin(config);
  try {
    if (verb === 'list') {
      if (rest.length > 1) throw new UsageError('pool token list takes at most one pool');
      const list = await tokens.list(rest[0]);
      io.stdout.write(values.json ? `${JSON.stringify({ version: 1, tokens: list }, null, 2)}\n` : renderList(list));
      return 0;
    }
    const pool = rest[0];
    if (!pool) throw new UsageError(`name the pool: pool token ${verb} POOL${verb === 'revoke' ? ' TOKEN_ID' : ''}`);
    if (!isPoolName(pool)) throw new UsageError(`"${pool}" is not a pool name: ${POOL_NAME_RULE}`);
    if (verb === 'create') {
      const pools = configuredPools(config.stacks);
      if (!pools.includes(pool))
        throw new ConfigError(
          [{ path: '--pool', message: `pool "${pool}" has no stacks in this config (its pools: ${pools.join(', ')})` }],
          config.file,
        );
      const name = values.name ?? `${pool}-${new Date().toISOString().slice(0, 10)}`;
      const { token, record } = await tokens.create({ pool, name, by });
      if (values.json) io.stdout.write(`${JSON.stringify({ version: 1, token, ...record }, null, 2)}\n`);
      else
        io.stdout.write(
          `${token}\n\npool token ${record.id} (${record.name}) for pool ${pool}: shown this once, keep it in the pool's secret store\n` +
            `(DRIFTGATE_POOL_TOKEN of that pool's workers). Revoke it with: driftgate pool token revoke ${pool} ${record.id}\n`,
        );
      return 0;
    }
    const id = rest[1];
    if (!id || rest.length !== 2)
      throw new UsageError('pool token revoke POOL TOKEN_ID (the id `pool token list` shows)');
    const revoked = await tokens.revoke({ pool, id, by });
    if (!revoked) {
      io.stderr.write(`driftgate pool: pool ${pool} has no token ${id} (driftgate pool token list ${pool})\n`);
      return 1;
    }
    io.stdout.write(`pool token ${id} (${revoked.name}) of pool ${pool}: revoked; workers presenting it are refused\n`);
    return 0;
  } finally {
    await tokens.close();
  }
}

function renderList(tokens: PoolToken[]): string {
  if (tokens.length === 0) return 'no pool tokens (driftgate pool token create POOL)\n';
  const rows = tokens.map((t) => [
    t.pool,
    t.id,
    t.name,
    t.createdAt.toISOString(),
    t.lastUsedAt?.toISOString() ?? 'never',
    t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : 'active',
  ]);
  const head = ['POOL', 'ID', 'NAME', 'CREATED', 'LAST USED', 'STATE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `${cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  return line(head) + rows.map(line).join('');
}

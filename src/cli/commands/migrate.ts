import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../../adapters/store/open-sqlite-store.js';
import { openStore, sqliteStorePath } from '../../adapters/store/open-store.js';
import { copySqliteStoreToPostgres } from '../../adapters/store/postgres/copy-from-sqlite.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';

/**
 * `driftgate migrate --to postgres`: moves the SQLite store of `dataDir` (or `--from FILE`) into the
 * config's Postgres store, which must be empty. Stop `serve` first: what it writes afterwards to the
 * SQLite file stays there.
 */
export async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, from: { type: 'string' }, config: { type: 'string', short: 'c' } },
  });
  if (values.to !== 'postgres') throw new UsageError('say where to: --to postgres');
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  if (config.store?.type !== 'postgres')
    throw new UsageError(
      `the config names no Postgres store: set store: {type: postgres, url: \${DATABASE_URL}} first`,
    );
  const from = values.from ?? sqliteStorePath(config.dataDir);
  if (!existsSync(from)) throw new UsageError(`no SQLite store at ${from} (--from names another file)`);
  // Opening brings each side's schema up to date: the copy moves rows between two current schemas.
  await (await openSqliteStore({ path: from })).close();
  await (await openStore(config)).close();
  const counts = await copySqliteStoreToPostgres(from, config.store.url);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  io.stdout.write(
    `copied ${total} rows from ${from} to the Postgres store (store.url):\n${Object.entries(counts)
      .map(([table, n]) => `  ${table.padEnd(15)} ${n}`)
      .join('\n')}\nset store: {type: postgres} in every process's config, then start serve\n`,
  );
  return 0;
}

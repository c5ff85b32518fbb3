import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupSqliteStore, sqliteStorePath } from '../../app/cli/store-admin.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';

/** `driftgate backup FILE`: a consistent copy of the SQLite store, safe while serve runs. */
export async function backupCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { config: { type: 'string', short: 'c' } },
  });
  const [file, ...extra] = positionals;
  if (!file || extra.length) throw new UsageError('name one file to write the backup to');
  const destination = resolve(io.cwd, file);
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  if (config.store?.type === 'postgres')
    throw new UsageError('the store is Postgres (store.type): back it up with pg_dump or your database service');
  const source = sqliteStorePath(config.dataDir);
  const { pages } = await backupSqliteStore(source, destination);
  io.stdout.write(`backed up ${source} to ${destination} (${pages} pages)\n`);
  return 0;
}

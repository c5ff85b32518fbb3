import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { copySqliteStoreToPostgres, migratePostgresSchema, sqliteStorePath } from '../../app/cli/store-admin.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';

/**
 * `driftgate migrate`: brings the config's Postgres store's schema up to date, as the owner role when
 * the environment holds its URL (`store.ownerUrlEnv`), which also grants the role of `store.url` what
 * the processes need. `--to postgres` then moves the SQLite store of `dataDir` (or `--from FILE`) into
 * it, which must be empty. Stop `serve` first: what it writes afterwards to the SQLite file stays there.
 */
export async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, from: { type: 'string' }, config: { type: 'string', short: 'c' } },
  });
  if (values.to !== undefined && values.to !== 'postgres') throw new UsageError('say where to: --to postgres');
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  if (config.store?.type !== 'postgres')
    throw new UsageError(
      `the config names no Postgres store: set store: {type: postgres, url: \${DATABASE_URL}} first`,
    );
  const from = values.from ?? sqliteStorePath(config.dataDir);
  if (values.to && !existsSync(from)) throw new UsageError(`no SQLite store at ${from} (--from names another file)`);
  const {
    version,
    ownerVariable: variable,
    ownerUrl,
    exposed,
  } = await migratePostgresSchema(config, {
    env: io.env,
    ...(values.to ? { sqliteFrom: from } : {}),
  });
  io.stdout.write(
    `the Postgres store's schema is at version ${version}${
      ownerUrl
        ? `, the owner role's (${variable}); store.url's role may only read and add to its audit`
        : ` (${variable} is not set: store.url's role made any step it needed)`
    }\n`,
  );
  if (exposed.length > 0)
    io.stderr.write(
      `warning: the audit trail is not protected from the processes that write it: ${exposed.join('; ')} (docs/production.md: "Two database roles")\n`,
    );
  if (!values.to) return 0;
  // As the owner when there is one: the copy keeps the audit's ids, and sets the sequences after them.
  const counts = await copySqliteStoreToPostgres(from, ownerUrl ?? config.store.url);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  io.stdout.write(
    `copied ${total} rows from ${from} to the Postgres store (store.url):\n${Object.entries(counts)
      .map(([table, n]) => `  ${table.padEnd(15)} ${n}`)
      .join('\n')}\nset store: {type: postgres} in every process's config, then start serve\n`,
  );
  return 0;
}

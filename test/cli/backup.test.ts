import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import { runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';

/** `driftgate backup FILE`: SQLite's online backup of the store, while another process holds it open. */
let dir: string;
const env = { PATH: process.env.PATH, HOME: process.env.HOME };
const app = { name: 'app', dir: 'app' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-backup-'));
  await mkdir(join(dir, 'app'));
  await writeFile(join(dir, 'app', 'main.tf'), '');
  await writeFile(join(dir, 'driftgate.yml'), configYaml({ dataDir: join(dir, 'data'), stacks: [app] }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('driftgate backup', () => {
  it('copies the store, with what is still only in its write-ahead log, while serve would hold it open', async () => {
    // Open like serve: its last commits sit in the WAL until a checkpoint, which a file copy would miss.
    const live = openSqliteStore({ path: join(dir, 'data', 'driftgate.db') });
    try {
      const run = await live.createRun({ stack: 'app', trigger: 'manual' });
      const result = await runCli(['backup', 'copy.db'], { cwd: dir, env });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^backed up .*driftgate\.db to .*copy\.db \(\d+ pages\)\n$/);
      expect((await stat(join(dir, 'copy.db'))).mode & 0o777).toBe(0o600);
      const copy = openSqliteStore({ path: join(dir, 'copy.db') });
      expect((await copy.getRun(run.id))?.stack).toBe('app');
      await copy.close();
    } finally {
      await live.close();
    }
  });

  it('never overwrites a file, and sends a Postgres store to pg_dump', async () => {
    const again = await runCli(['backup', 'copy.db'], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/copy\.db exists: name a new file/);
    await writeFile(
      join(dir, 'pg.yml'),
      configYaml({
        dataDir: join(dir, 'data'),
        stacks: [app],
        store: { type: 'postgres', url: 'postgres://x@127.0.0.1/x' },
      }),
    );
    const pg = await runCli(['backup', 'pg.db', '--config', 'pg.yml'], { cwd: dir, env });
    expect(pg.code).toBe(1);
    expect(pg.stderr).toContain('back it up with pg_dump');
  });
});

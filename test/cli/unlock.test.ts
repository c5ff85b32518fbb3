/**
 * `driftgate unlock STACK` through the real CLI, a process of its own: the lock of a run this test process
 * holds (alive, another process) is not stale and stays, and the refusal is audited as `/drift unlock`'s
 * is; once the lock is released, unlock lifts the block, audited with the OS user.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';

let dir: string;
const env = { PATH: process.env.PATH, HOME: process.env.HOME, USER: 'grace' };
const unlock = () =>
  execa('node', [BIN, 'unlock', 'app', '--config', join(dir, 'driftgate.yml')], {
    cwd: dir,
    env,
    extendEnv: false,
    reject: false,
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-unlock-'));
  await mkdir(join(dir, 'app'));
  await writeFile(join(dir, 'app', 'main.tf'), '');
  await writeFile(
    join(dir, 'driftgate.yml'),
    configYaml({ dataDir: join(dir, 'data'), stacks: [{ name: 'app', dir: 'app' }] }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.skipIf(!HAS_BUILD)(`driftgate unlock (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('leaves a lock a live process holds, audited as unlock_refused; then lifts the block, audited', async () => {
    await mkdir(join(dir, 'data'), { recursive: true });
    // This test process is the live holder: the CLI is another process, which must not break its lock.
    const store = openSqliteStore({ path: join(dir, 'data', 'driftgate.db') });
    try {
      const run = await store.createRun({ stack: 'app', trigger: 'manual' });
      expect((await store.acquireLock('app', run.id, 3600_000)).acquired).toBe(true);
      await store.blockStack('app', 'apply interrupted');

      const refused = await unlock();
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toBe(
        `app: run ${run.id} is running in a driftgate process right now; its lock is not stale (it lapses by itself defaults.lockTtl after that process stops). Nothing was changed.`,
      );
      expect((await store.getLock('app'))?.runId).toBe(run.id);
      expect((await store.getStack('app'))?.blockedReason).toBe('apply interrupted');
      expect(await store.listAudit({ stack: 'app' })).toMatchObject([
        { action: 'unlock_refused', actor: 'cli:grace', detail: { reason: 'running' } },
      ]);

      await store.releaseLock('app', run.id);
      const unlocked = await unlock();
      expect(unlocked).toMatchObject({
        exitCode: 0,
        stderr: '',
        stdout: 'app: unlocked (was blocked: apply interrupted)',
      });
      expect((await store.getStack('app'))?.blockedReason).toBeUndefined();
      expect((await store.listAudit({ stack: 'app' })).map((a) => [a.action, a.actor])).toEqual([
        ['unlock_refused', 'cli:grace'],
        ['unlock', 'cli:grace'],
      ]);
    } finally {
      await store.close();
    }
  });
});

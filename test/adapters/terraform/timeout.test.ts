import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { TerraformError } from '../../../src/domain/errors.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from './fixtures.js';

const dirs = useTerraformTestDirs('driftgate-timeout-');

/** Pids of live processes whose environment holds `marker`: terraform, its plugins, provisioner shells. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

/** Signals take a moment to land; wait (bounded) until no marked process is left. */
async function leftoverProcesses(marker: string): Promise<number[]> {
  let pids = await processesWith(marker);
  for (let i = 0; i < 50 && pids.length; i++) {
    await sleep(100);
    pids = await processesWith(marker);
  }
  return pids;
}

it('ends a slow apply on timeout or abort, leaves no process behind and releases the state lock', async () => {
  const dir = join(dirs.tmp, 'slow');
  await writeFiles(dir, {
    'main.tf': 'resource "terraform_data" "slow" {\n  provisioner "local-exec" { command = "sleep 60" }\n}\n',
  });
  const markerValue = randomUUID();
  const marker = `DRIFTGATE_TEST_MARKER=${markerValue}`;
  const stack = stackConfig('test', dir, { env: { DRIFTGATE_TEST_MARKER: markerValue } });
  const { runner } = testRunner(dirs.tfEnv, dirs.tmp, {
    timeouts: { plan: 120_000, apply: 3_000, lock: 10_000, killGrace: 10_000 },
  });
  const planFile = join(dirs.tmp, 'slow.tfplan');

  expect((await runner.plan(stack, planFile)).hasChanges).toBe(true);
  const timedOut = await runner.apply(stack, planFile).catch((e: unknown) => e);
  expect(timedOut).toBeInstanceOf(TerraformError);
  expect(timedOut).toMatchObject({ code: 'TERRAFORM_TIMEOUT', command: 'apply' });
  expect(await leftoverProcesses(marker)).toEqual([]);

  // The lock was released: the next plan gets it (it would wait 10 s, then fail, if not).
  expect((await runner.plan(stack, planFile)).hasChanges).toBe(true);

  const controller = new AbortController();
  const aborted = runner.apply(stack, planFile, { signal: controller.signal }).catch((e: unknown) => e);
  setTimeout(() => controller.abort(), 1_500);
  expect(await aborted).toMatchObject({ code: 'TERRAFORM_FAILED', command: 'apply' });
  expect(await leftoverProcesses(marker)).toEqual([]);
  expect((await runner.plan(stack, planFile)).hasChanges).toBe(true);
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRetention } from '../../../src/services/runtime/retention.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';

const STACK = 'resource "terraform_data" "queue" {\n  input = { name = "jobs", password = "hunter2" }\n}\n';
const DAY = 86_400_000;

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('daily retention', () => {
  it('removes saved plans a killed run left in the work dir, keeps a running one, prunes old delivered and dead outbox items', async () => {
    app = await makeTestApp({ stacks: { queue: STACK }, config: { defaults: { outboxRetention: '7d' } } });
    const { deps, store, config } = app.context;
    const stack = app.context.stack('queue')!;
    // A run killed after its plan was written: the raw plan is where check-stack put it.
    const killed = await store.createRun({ stack: 'queue', trigger: 'schedule' });
    const killedPlan = join(deps.workDir, killed.id, 'plan.tfplan');
    await deps.terraform.plan(stack, killedPlan);
    await store.recoverInterrupted();
    // A run planning right now keeps its scratch dir.
    const running = await store.createRun({ stack: 'queue', trigger: 'manual' });
    const runningPlan = join(deps.workDir, running.id, 'plan.tfplan');
    await deps.terraform.plan(stack, runningPlan);

    const delivered = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: { text: 'old' } });
    await store.markDelivered(delivered.id);
    // Failed for good: one past its 14 days, one within them (still shown by `driftgate status`).
    const deadOld = await store.enqueue({ key: 'd1', method: 'chat.postMessage', payload: { text: 'refused' } });
    await store.markDead(deadOld.id, 'invalid_blocks');
    app.now.value = new Date(app.now.value.getTime() + 8 * DAY);
    const deadRecent = await store.enqueue({ key: 'd2', method: 'chat.postMessage', payload: { text: 'refused' } });
    await store.markDead(deadRecent.id, 'invalid_blocks');
    app.now.value = new Date(app.now.value.getTime() + 7 * DAY);
    const open = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'open' } });

    const removed = await runRetention(
      { ...deps, store },
      {
        outbox: config.defaults.outboxRetention,
        outboxDead: config.defaults.outboxDeadRetention,
        artifacts: config.artifacts.retention,
      },
    );
    expect(removed).toMatchObject({ workLeftovers: 1, outbox: 1, outboxDead: 1 });
    expect((await store.listDead(10)).items.map((i) => i.id)).toEqual([deadRecent.id]);
    expect(existsSync(join(deps.workDir, killed.id))).toBe(false);
    expect(existsSync(runningPlan)).toBe(true);
    expect((await store.due(app.now.value, 10)).map((i) => i.id)).toEqual([open.id]);
    expect(await store.pendingCount()).toBe(1);
  });
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, actionIds, alerts, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();

const STACK = 'staging/network';

async function serve(): Promise<SlackServe> {
  const h = await startServe({
    stacks: { [STACK]: NETWORK },
    stackSettings: { [STACK]: { environment: 'staging' } },
    config: APPROVERS,
  });
  return h;
}

/** Moves driftgate's clock past the outbox's backoff and delivers what is due, until `done` or 50 rounds. */
async function retryUntil(h: SlackServe, done: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) {
    h.now.value = new Date(h.now.value.getTime() + 5 * 60_000);
    await h.settle();
  }
}

describe('Slack failing, slow terraform, restarts', () => {
  it('delivers the alert exactly once after Slack answered 5xx and 429 for a while', async () => {
    const h = await serve();
    await makeDrift(h, STACK);
    h.emulator.failNext(3, { status: 503 });
    h.emulator.rateLimitNext(1, 1);
    const outcome = await h.running.scheduler.request(STACK);
    expect(outcome.status).toBe('drifted');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(0);
    await retryUntil(h, () => alerts(h, CHANNEL).length > 0);

    expect(alerts(h, CHANNEL)).toHaveLength(1);
    const posts = h.emulator.calls('chat.postMessage').map((c) => c.status);
    expect(posts).toEqual([503, 503, 503, 429, 200]);
    const metrics = await (await fetch(`${h.base}/metrics`)).text();
    expect(metrics).toMatch(/driftgate_slack_api_errors_total\{method="chat.postMessage",retriable="true"\} 4/);
  });

  it('loses nothing while Slack refuses connections, and the approval flow goes on when it is back', async () => {
    const h = await serve();
    await makeDrift(h, STACK);
    await h.emulator.down();
    const outcome = await h.running.scheduler.request(STACK);
    await h.settle();
    expect(await h.running.context.store.pendingCount()).toBe(1);
    await h.emulator.up();
    await retryUntil(h, () => alerts(h, CHANNEL).length > 0);
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(textOf(alerts(h, CHANNEL)[0])).toContain(outcome.status === 'drifted' ? outcome.run.id : 'no run');
  });

  it('acks a click at once while the apply it started is still running', async () => {
    const h = await serve();
    await h.applyWithTerraform(STACK);
    // A resource whose creation waits for the test to let it finish: the apply is slow for as long as needed.
    const release = join(h.tf.dir, 'release-apply');
    const slow = `\nresource "terraform_data" "slow" {\n  input = "slow"\n  provisioner "local-exec" {\n    command = "while [ ! -f ${release} ]; do sleep 0.05; done"\n  }\n}\n`;
    await writeFile(join(h.stackDir(STACK), 'main.tf'), NETWORK + slow);
    const outcome = await h.running.scheduler.request(STACK);
    if (outcome.status !== 'drifted') throw new Error(`expected changes, got ${outcome.status}`);
    await h.settle();

    const response = await h.click(ACTION_IDS.approve, outcome.run.id, LEAD1, { id: 'slow' });
    expect(response.status).toBe(200);
    // The click was answered; the apply is still held by the provisioner.
    for (let i = 0; i < 400 && (await h.running.context.store.getRun(outcome.run.id))?.state !== 'applying'; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect((await h.running.context.store.getRun(outcome.run.id))?.state).toBe('applying');
    const [alert] = alerts(h, CHANNEL);
    await writeFile(release, '');
    await h.settle();
    expect((await h.running.context.store.getRun(outcome.run.id))?.state).toBe('applied');
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain('Applied in');
  });

  it('applies a run approved just before a stop when it starts again', async () => {
    const h = await serve();
    await makeDrift(h, STACK);
    const outcome = await h.running.scheduler.request(STACK);
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();
    const [alert] = alerts(h, CHANNEL);
    // As if the process stopped right after the last approval's compare-and-set.
    const store = h.running.context.store;
    await store.addApproval({ runId: outcome.run.id, userId: LEAD1, at: new Date() });
    await store.transition(outcome.run.id, 'drifted', 'approved');

    await h.restart();
    await h.settle();
    const after = h.running.context.store;
    expect((await after.getRun(outcome.run.id))?.state).toBe('applied');
    expect((await after.listAudit({ runId: outcome.run.id })).find((a) => a.action === 'apply_started')?.actor).toBe(
      LEAD1,
    );
    const updated = h.emulator.message(alert!.channel, alert!.ts);
    expect(textOf(updated)).toContain('verified: no drift');
    expect(actionIds(updated)).toEqual([]);
  });
});

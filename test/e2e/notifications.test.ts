import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { ask } from './commands/helpers.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, actionIds, alerts, driftAgain, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();

function buttonValues(message: { blocks?: unknown[] } | undefined): string[] {
  return (
    JSON.stringify(message?.blocks ?? [])
      .match(/"value":"([^"]+)"/g)
      ?.map((v) => v.slice(9, -1)) ?? []
  );
}

const runIdOf = (outcome: { status: string; run?: { id: string } }) => outcome.run?.id ?? '';

describe('what the notifier posts as runs come and go', () => {
  it('takes over the message on a re-plan, marks it superseded by new drift, and resolved when the drift is gone', async () => {
    const h = await startServe({
      stacks: { 'dev/network': NETWORK },
      stackSettings: { 'dev/network': { environment: 'dev' } },
      config: APPROVERS,
    });
    await makeDrift(h, 'dev/network');
    const first = await h.running.scheduler.request('dev/network');
    await h.settle();
    const [alert] = alerts(h, CHANNEL);

    // The same drift an hour later: no new alert, the message now offers the newer plan.
    const again = await h.running.scheduler.request('dev/network');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    const refreshed = h.emulator.message(alert!.channel, alert!.ts);
    expect(buttonValues(refreshed)).toEqual([runIdOf(again), runIdOf(again), runIdOf(again)]);
    expect((await h.running.context.store.getRun(runIdOf(first)))?.state).toBe('superseded');
    expect(await h.running.context.store.getMessage(runIdOf(again))).toEqual({
      runId: runIdOf(again),
      channel: alert!.channel,
      ts: alert!.ts,
    });

    // Different drift: a new alert, and the old message says it was superseded.
    await driftAgain(h, 'dev/network', 'someone-else');
    const other = await h.running.scheduler.request('dev/network');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(2);
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain(
      `Superseded by a newer plan (run ${runIdOf(other)})`,
    );
    expect(actionIds(h.emulator.message(alert!.channel, alert!.ts))).toEqual([]);

    // Someone puts it back by hand: the open alert says the drift is resolved.
    await h.applyWithTerraform('dev/network');
    const clean = await h.running.scheduler.request('dev/network');
    expect(clean.status).toBe('no_changes');
    await h.settle();
    const second = alerts(h, CHANNEL)[1]!;
    expect(textOf(h.emulator.message(second.channel, second.ts))).toContain('Drift resolved');
    expect(actionIds(h.emulator.message(second.channel, second.ts))).toEqual([]);
  });

  it('alerts once when the same drift is planned again while its alert waits in the digest window', async () => {
    // Found by the soak: two checks a second apart each posted an alert of the same drift.
    const h = await startServe({
      stacks: { 'dev/network': NETWORK },
      config: { ...APPROVERS, slack: { digestWindow: '10m' } },
    });
    await makeDrift(h, 'dev/network');
    const first = await h.running.scheduler.request('dev/network');
    const again = await h.running.scheduler.request('dev/network');
    expect([first.status, again.status]).toEqual(['drifted', 'drifted']);
    await h.settle();

    const [alert, ...more] = alerts(h, CHANNEL);
    expect(more).toEqual([]);
    // The newer plan, whose buttons still work: the first one was superseded.
    expect(buttonValues(alert)).toContain(runIdOf(again));
    expect(buttonValues(alert)).not.toContain(runIdOf(first));
    const store = h.running.context.store;
    expect((await store.listAudit({ runId: runIdOf(again) })).map((a) => a.action)).toContain('alert_posted');
  });

  it('posts a failing plan once per distinct error, with the end of stderr', async () => {
    const h = await startServe({
      stacks: { 'dev/broken': 'resource "terraform_data" "x" {\n  input = \n}\n' },
      config: APPROVERS,
    });
    expect((await h.running.scheduler.request('dev/broken')).status).toBe('errored');
    expect((await h.running.scheduler.request('dev/broken')).status).toBe('errored');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(textOf(alerts(h, CHANNEL)[0])).toContain('Plan failed for dev/broken');
    expect(textOf(alerts(h, CHANNEL)[0])).toMatch(/Invalid expression|Argument or block definition required/);

    await writeFile(join(h.stackDir('dev/broken'), 'main.tf'), 'resource "terraform_data" "x" {\n  input = nope\n}\n');
    expect((await h.running.scheduler.request('dev/broken')).status).toBe('errored');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(2);
  });

  it("shows terraform's Error block before the CLI configuration warning, in the alert and in /drift show", async () => {
    const h = await startServe({
      stacks: { 'dev/broken': 'resource "terraform_data" "x" {\n  input = var.missing\n}\n' },
      config: APPROVERS,
      // A CLI config file that does not exist: terraform warns about it on stderr before the error.
      env: { TF_CLI_CONFIG_FILE: '/nonexistent/driftgate-test.tfrc' },
    });
    expect((await h.running.scheduler.request('dev/broken')).status).toBe('errored');
    await h.settle();
    const errorFirst = (text: string) => {
      const error = text.indexOf('Error: Reference to undeclared input variable');
      expect(error).toBeGreaterThanOrEqual(0);
      const warning = text.indexOf('Warning: Unable to open CLI configuration file');
      if (warning >= 0) expect(warning).toBeGreaterThan(error);
      expect(
        text.indexOf('problems with the CLI configuration') < 0 ||
          text.indexOf('problems with the CLI configuration') > error,
      ).toBe(true);
    };
    errorFirst(textOf(alerts(h, CHANNEL)[0]));
    const { answers: shown } = await ask(h, 'show dev/broken', LEAD1);
    errorFirst(shown[0]!);
  });

  it('posts a storm of drift as one digest whose Open buttons post each stack in its thread', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `dev/${n}`);
    const h = await startServe({
      stacks: Object.fromEntries(names.map((n) => [n, NETWORK])),
      config: { ...APPROVERS, slack: { digestThreshold: 5, digestWindow: '10m' } },
    });
    const serve = h;
    await Promise.all(names.map((n) => makeDrift(serve, n)));
    const outcomes = await Promise.all(names.map((n) => serve.running.scheduler.request(n)));
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('drifted'));
    await h.settle();

    const [digest, ...rest] = alerts(h, CHANNEL);
    expect(rest).toEqual([]);
    expect(textOf(digest)).toContain('Drift in 6 stacks');
    expect(buttonValues(digest).sort()).toEqual(outcomes.map(runIdOf).sort());

    await h.click(ACTION_IDS.openStack, runIdOf(outcomes[0]!), LEAD1, {
      message: { channel: digest!.channel, ts: digest!.ts },
    });
    await h.settle();
    const thread = h.emulator.messages(CHANNEL).filter((m) => m.threadTs === digest!.ts);
    expect(thread).toHaveLength(1);
    expect(textOf(thread[0])).toContain('Drift detected in dev/a');
    expect(actionIds(thread[0])).toContain(ACTION_IDS.approve);

    // The next sweep finds the same drift everywhere: nothing new in the channel.
    await Promise.all(names.map((n) => serve.running.scheduler.request(n)));
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(h.emulator.messages(CHANNEL).filter((m) => m.threadTs === digest!.ts)).toHaveLength(1);
  });
});

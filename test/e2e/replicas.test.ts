import { describe, expect, it } from 'vitest';
import { startServe } from '../../src/app/serve.js';
import { usePostgres } from '../helpers/postgres.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, NETWORK, alerts, driftAgain, makeDrift } from './fixtures.js';

const postgres = usePostgres();
const startSlackServe = useSlackServe();
const STACK = 'staging/network';

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Two `serve`s on one Postgres store: both answer, one leads. A check run on the standby is posted once, by
 * the leader's outbox; when the leader stops, the standby takes the lead and delivers from then on.
 */
describe('serve replicas on one Postgres store', () => {
  it('posts what either replica finds once, and the standby takes the lead when the leader stops', async () => {
    const h = await startSlackServe({
      stacks: { [STACK]: NETWORK },
      stackSettings: { [STACK]: { environment: 'staging' } },
      config: { ...APPROVERS, store: { type: 'postgres', url: '${DATABASE_URL}' } },
      env: { DATABASE_URL: await postgres.createDatabase() },
    });
    const leader = h.running;
    const standby = await startServe(leader.context.config, {
      env: h.env,
      port: 0,
      host: '127.0.0.1',
      // One clock for both, as replicas on synchronised hosts have: the outbox's due times are compared to it.
      now: () => new Date(h.now.value),
      outboxPollMs: 20,
      leaseCheckMs: 100,
    });
    try {
      expect(leader.leading()).toBe(true);
      expect(standby.leading()).toBe(false);
      const leaderGauge = async (serve: typeof leader) =>
        /^driftgate_leader (\d)$/m.exec(
          await (await fetch(`http://127.0.0.1:${serve.health.port}/metrics`)).text(),
        )?.[1];
      expect([await leaderGauge(leader), await leaderGauge(standby)]).toEqual(['1', '0']);

      await makeDrift(h, STACK);
      const first = await standby.scheduler.request(STACK);
      expect(first.status).toBe('drifted');
      await until('the alert', () => alerts(h, CHANNEL).length === 1);
      await until('the outbox to drain', async () => (await leader.context.store.pendingCount()) === 0);
      expect(h.emulator.calls('chat.postMessage')).toHaveLength(1);

      await leader.stop();
      await until('the standby to lead', () => standby.leading());
      expect(await leaderGauge(standby)).toBe('1');
      const posts = () => h.emulator.calls('chat.postMessage').length + h.emulator.calls('chat.update').length;
      const before = posts();
      await driftAgain(h, STACK, 'second-cowboy');
      const second = await standby.scheduler.request(STACK);
      expect(second.status).toBe('drifted');
      await until('the new leader to deliver', () => posts() > before);
      await until('its outbox to drain', async () => (await standby.context.store.pendingCount()) === 0);
    } finally {
      await standby.stop();
    }
  });

  it('a check on one replica while another holds the stack waits its turn instead of failing', async () => {
    const h = await startSlackServe({
      stacks: { [STACK]: NETWORK },
      stackSettings: { [STACK]: { environment: 'staging' } },
      config: { ...APPROVERS, store: { type: 'postgres', url: '${DATABASE_URL}' } },
      env: { DATABASE_URL: await postgres.createDatabase() },
    });
    const { store } = h.running.context;
    // The other replica's check of the stack, holding its lock (as change events on two replicas do).
    const other = await store.createRun({ stack: STACK, trigger: 'event' });
    expect((await store.acquireLock(STACK, other.id, 60_000)).acquired).toBe(true);

    const check = h.running.scheduler.request(STACK, 'event');
    let settled = false;
    void check.finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(settled).toBe(false);
    expect((await store.listRuns({ stack: STACK })).map((r) => r.id)).toEqual([other.id]);

    await store.transition(other.id, 'planning', 'no_changes');
    await store.releaseLock(STACK, other.id);
    expect((await check).status).toBe('drifted');
    expect((await store.listRuns({ stack: STACK, states: ['errored'] })).length).toBe(0);
  });
});

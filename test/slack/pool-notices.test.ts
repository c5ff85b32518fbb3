import { describe, expect, it } from 'vitest';
import type { PoolHealth } from '../../src/domain/pool/pool-health.js';
import { renderPoolNotice } from '../../src/slack/blocks/render-pool-notice.js';
import { poolNoticePoster } from '../../src/slack/notifier/pool-notices.js';
import { poolChannel } from '../../src/slack/routing.js';
import { createUnservedPoolsWatch } from '../../src/services/pools/unserved-pools.js';
import { SlackConfig } from '../../src/config/schema.js';
import { unservedProd } from '../helpers/pool-health.js';
import { expectNoInjection, expectValidMessage, mrkdwnTexts } from './blocks/helpers.js';
import { useOutboxFixture } from '../services/outbox/outbox-fixture.js';

const slack = SlackConfig.parse({ defaultChannel: 'CDEFAULT', channels: [{ match: 'prod/*', channel: 'CPROD' }] });

describe('no worker for a pool, said in Slack', () => {
  const fx = useOutboxFixture();

  it('posts once per episode through the outbox, and once more when the pool is served again', async () => {
    const { store, worker } = fx.open();
    const start = Date.now();
    let health: PoolHealth[] = [];
    const watch = createUnservedPoolsWatch({
      status: async () => health,
      afterMs: 5 * 60_000,
      now: () => new Date(start),
      notify: poolNoticePoster({
        store,
        channelOf: (pool) => poolChannel(slack, [{ name: 'prod/site', pool: 'prod' }], pool),
      }),
    });
    const at = new Date(start);
    health = [{ ...unservedProd(at), unservedSince: new Date(start - 4 * 60_000) }];
    expect(await watch.check()).toBe(0);
    health = [unservedProd(at)];
    expect(await watch.check()).toBe(1);
    expect(await watch.check()).toBe(0);
    expect(await worker.drain()).toBe(1);
    expect(fx.emulator.messages('CPROD').map((m) => m.text)).toEqual(['No worker for pool prod for 5 min']);

    health = [{ ...unservedProd(at), liveWorkers: 2, capacity: 4, unservedSince: undefined }];
    expect(await watch.check()).toBe(1);
    expect(await watch.check()).toBe(0);
    expect(await worker.drain()).toBe(1);
    expect(fx.emulator.messages('CPROD').map((m) => m.text)).toEqual([
      'No worker for pool prod for 5 min',
      'Pool prod is served again: 2 live workers',
    ]);
  });

  it('counts an episode from the first look that found it, when the queue samples its oldest job as just queued', async () => {
    const { store, worker } = fx.open();
    let now = new Date('2026-12-04T10:00:00Z');
    const watch = createUnservedPoolsWatch({
      // What a fresh monitor sample says: waiting, no worker, the oldest job 0 s old.
      status: async () => [{ ...unservedProd(now), unservedSince: now }],
      afterMs: 5 * 60_000,
      now: () => now,
      notify: poolNoticePoster({ store, channelOf: () => 'C1' }),
    });
    expect(await watch.check()).toBe(0);
    now = new Date(now.getTime() + 4 * 60_000);
    expect(await watch.check()).toBe(0);
    now = new Date(now.getTime() + 60_000);
    expect(await watch.check()).toBe(1);
    expect(await worker.drain()).toBe(1);
    expect(fx.emulator.messages('C1').map((m) => m.text)).toEqual(['No worker for pool prod for 5 min']);
  });

  it('tells the next look when the outbox could not take the notice', async () => {
    const { store, worker } = fx.open();
    const at = new Date();
    let refuse = true;
    const post = poolNoticePoster({ store, channelOf: () => 'C1' });
    const watch = createUnservedPoolsWatch({
      status: async () => [unservedProd(at)],
      afterMs: 60_000,
      now: () => at,
      notify: async (notice) => {
        if (refuse) throw new Error('store unavailable');
        await post(notice);
      },
    });
    await expect(watch.check()).rejects.toThrow('store unavailable');
    refuse = false;
    expect(await watch.check()).toBe(1);
    expect(await worker.drain()).toBe(1);
    expect(fx.emulator.messages('C1')).toHaveLength(1);
  });
});

describe('pool notices in Block Kit', () => {
  const at = new Date('2026-12-04T10:00:00Z');

  it('say how long, how much waits, and what to run; the follow-up how long it lasted', () => {
    const unserved = renderPoolNotice({
      kind: 'unserved',
      pool: 'prod',
      since: new Date(at.getTime() - 300_000),
      at,
      health: unservedProd(at),
    });
    expectValidMessage(unserved);
    expect(mrkdwnTexts(unserved.blocks)[0]).toBe(
      ':warning: *No worker for pool prod for 5 min*: 3 jobs waiting (the oldest for 7 min). Start `driftgate worker --pool prod`, or see why its workers stopped with `driftgate workers`.',
    );
    const drained = renderPoolNotice({ kind: 'served', pool: 'prod', since: new Date(at.getTime() - 720_000), at });
    expect(drained.text).toBe('Nothing waits in pool prod any more');
    expect(mrkdwnTexts(drained.blocks)[0]).toContain('(it had none for 12 min)');
    expectNoInjection(
      mrkdwnTexts(
        renderPoolNotice({ kind: 'unserved', pool: '<!channel>', since: at, at, health: unservedProd(at) }).blocks,
      ),
    );
  });

  it("go to the channel of the pool's stacks when they share one, else the default channel", () => {
    const stacks = [
      { name: 'prod/site', pool: 'prod' },
      { name: 'prod/db', pool: 'prod' },
      { name: 'dev/site', pool: 'shared' },
      { name: 'prod/queue', pool: 'shared' },
    ];
    expect(poolChannel(slack, stacks, 'prod')).toBe('CPROD');
    expect(poolChannel(slack, stacks, 'shared')).toBe('CDEFAULT');
    expect(poolChannel(slack, stacks, 'typo')).toBe('CDEFAULT');
  });
});

import { describe, expect, it } from 'vitest';
import { manualClock } from '../temp-store.js';
import type { StoreContractTarget } from './target.js';

/** Approvals, message refs, the outbox, silences and snoozes. */
export function slackContract(target: StoreContractTarget): void {
  describe('approvals and messages', () => {
    it('counts each user once per run, across connections and for clicks at the same moment', async () => {
      const clock = manualClock();
      const a = await target.open({ now: clock.now });
      const b = await target.open({ now: clock.now });
      const at = clock.now();
      const later = new Date(at.getTime() + 1);
      expect(await a.addApproval({ runId: 'r1', userId: 'U1', at, groups: ['sre'] })).toBe(true);
      expect(await b.addApproval({ runId: 'r1', userId: 'U1', at })).toBe(false);
      expect(await b.addApproval({ runId: 'r1', userId: 'U2', at: later })).toBe(true);
      expect(await a.addApproval({ runId: 'r2', userId: 'U1', at })).toBe(true);
      const twice = await Promise.all([a, b].map((s) => s.addApproval({ runId: 'r3', userId: 'U3', at })));
      expect(twice.filter(Boolean)).toHaveLength(1);
      expect(await a.listApprovals('r1')).toEqual([
        { runId: 'r1', userId: 'U1', at, groups: ['sre'] },
        { runId: 'r1', userId: 'U2', at: later },
      ]);
      expect(await a.listApprovals('r3')).toHaveLength(1);
      expect(await a.listApprovals('nope')).toEqual([]);
    });

    it('keeps one message ref per run, and knows a post still in the outbox will make one', async () => {
      const store = await target.open();
      expect(await store.getMessage('r1')).toBeUndefined();
      expect(await store.hasMessage('r1')).toBe(false);
      await store.setMessage({ runId: 'r1', channel: 'C1', ts: '1.1' });
      await store.setMessage({ runId: 'r1', channel: 'C2', ts: '2.2' });
      expect(await store.getMessage('r1')).toEqual({ runId: 'r1', channel: 'C2', ts: '2.2' });
      expect(await store.hasMessage('r1')).toBe(true);
      const post = await store.enqueue({ key: 'r2', method: 'chat.postMessage', payload: {}, recordMessageFor: 'r2' });
      expect(await store.hasMessage('r2')).toBe(true);
      await store.markDead(post.id, 'channel_not_found');
      expect(await store.hasMessage('r2')).toBe(false);
    });
  });

  describe('outbox', () => {
    it('hands out only the oldest open item of each key, even while it waits for a retry', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const a1 = await store.enqueue({
        key: 'run-a',
        method: 'chat.postMessage',
        payload: { text: 'a1', blocks: [{ type: 'section' }] },
        recordMessageFor: 'run-a',
      });
      const a2 = await store.enqueue({ key: 'run-a', method: 'chat.update', payload: { text: 'a2' } });
      const b1 = await store.enqueue({ key: 'run-b', method: 'chat.postMessage', payload: { text: 'b1' } });
      expect(a1).toEqual({
        id: a1.id,
        key: 'run-a',
        method: 'chat.postMessage',
        payload: { text: 'a1', blocks: [{ type: 'section' }] },
        attempts: 0,
        nextAttemptAt: clock.now(),
        recordMessageFor: 'run-a',
      });
      expect(await store.pendingCount()).toBe(3);
      expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([a1.id, b1.id]);
      expect((await store.due(clock.now(), 1)).map((i) => i.id)).toEqual([a1.id]);

      // a1 fails and waits a minute: a2 must not overtake it.
      await store.markFailed(a1.id, 'HTTP 503', new Date(clock.now().getTime() + 60_000));
      expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([b1.id]);
      clock.advance(60_000);
      expect((await store.due(clock.now(), 10)).find((i) => i.key === 'run-a')).toMatchObject({
        id: a1.id,
        attempts: 1,
        lastError: 'HTTP 503',
      });
      await store.markDelivered(a1.id);
      await store.markDelivered(b1.id);
      expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([a2.id]);
      expect(await store.pendingCount()).toBe(1);
    });

    it('never hands out a dead item again, and a dead item stops holding back its key', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const first = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: {} });
      const second = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: {} });
      await store.markDead(first.id, 'invalid_blocks');
      expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([second.id]);
      expect(await store.pendingCount()).toBe(1);
    });

    it('prunes delivered items older than the retention, and only those', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const old = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: { text: 'old' } });
      await store.markDelivered(old.id);
      const dead = await store.enqueue({ key: 'd', method: 'chat.postMessage', payload: {} });
      await store.markDead(dead.id, 'invalid_blocks');
      clock.advance(8 * 86_400_000);
      const recent = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'recent' } });
      await store.markDelivered(recent.id);
      const open = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'open' } });
      expect(await store.pruneDelivered(new Date(clock.now().getTime() - 7 * 86_400_000))).toBe(1);
      expect(await store.pruneDelivered(new Date(clock.now().getTime() - 7 * 86_400_000))).toBe(0);
      expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([open.id]);
    });

    it('lists items that failed for good, newest first, and prunes those older than their retention', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const old = await store.enqueue({ key: 'a', method: 'chat.postMessage', payload: {} });
      await store.markDead(old.id, 'invalid_blocks');
      clock.advance(15 * 86_400_000);
      const recent = await store.enqueue({ key: 'b', method: 'pagerduty.enqueue', payload: {} });
      await store.markDead(recent.id, 'PagerDuty answered 400: Invalid routing key');
      const delivered = await store.enqueue({ key: 'c', method: 'chat.update', payload: {} });
      await store.markDelivered(delivered.id);
      const listed = await store.listDead(1);
      expect(listed.total).toBe(2);
      expect(listed.items).toEqual([
        {
          id: recent.id,
          key: 'b',
          method: 'pagerduty.enqueue',
          attempts: 1,
          error: 'PagerDuty answered 400: Invalid routing key',
          deadAt: clock.now(),
        },
      ]);
      expect(await store.pruneDead(new Date(clock.now().getTime() - 14 * 86_400_000))).toBe(1);
      expect(await store.listDead(10)).toMatchObject({ total: 1, items: [{ id: recent.id }] });
      // Delivered items are the other retention's.
      expect(await store.pruneDelivered(new Date(clock.now().getTime() + 1))).toBe(1);
    });
  });

  describe('silences and snoozes', () => {
    it('silences a stack until a time, and unsilences early', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const until = new Date(clock.now().getTime() + 3_600_000);
      await store.silence({ stack: 'net', until, reason: 'maintenance', by: 'U1' });
      expect(await store.getSilence('net', clock.now())).toEqual({
        stack: 'net',
        until,
        reason: 'maintenance',
        by: 'U1',
      });
      expect(await store.getSilence('net', until)).toBeUndefined();
      expect(await store.getSilence('other', clock.now())).toBeUndefined();
      await store.silence({ stack: 'net', until, by: 'U2' });
      expect(await store.unsilence('net')).toEqual({ stack: 'net', until, by: 'U2' });
      expect(await store.unsilence('net')).toBeUndefined();
      expect(await store.getSilence('net', clock.now())).toBeUndefined();
    });

    it('snoozes one fingerprint of a stack until a time', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const until = new Date(clock.now().getTime() + 1000);
      await store.snooze('net', 'fp1', until);
      expect(await store.isSnoozed('net', 'fp1', clock.now())).toBe(true);
      expect(await store.isSnoozed('net', 'fp2', clock.now())).toBe(false);
      expect(await store.isSnoozed('app', 'fp1', clock.now())).toBe(false);
      expect(await store.isSnoozed('net', 'fp1', until)).toBe(false);
      await store.snooze('net', 'fp1', new Date(until.getTime() + 1000));
      expect(await store.isSnoozed('net', 'fp1', until)).toBe(true);
    });
  });
}

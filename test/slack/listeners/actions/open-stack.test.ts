import { describe, expect, it } from 'vitest';
import { handleOpenStack } from '../../../../src/slack/listeners/actions/open-stack.js';
import { CHANNEL, GONE, LEAD1, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();
const DIGEST = { channel: CHANNEL, ts: '1700000999.000200' };

describe('handleOpenStack', () => {
  it("posts the run's interactive message in the digest's thread and audits who opened it", async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { analysis: true });
    await handleOpenStack(w.deps, w.click(run.id, LEAD1, { message: DIGEST }), w.tell);
    const [post, ...rest] = w.outbox();
    expect(rest).toEqual([]);
    expect(post).toMatchObject({
      key: `stack:${STAGING}`,
      method: 'chat.postMessage',
      payload: { channel: CHANNEL, thread_ts: DIGEST.ts },
    });
    expect(JSON.stringify(post!.payload)).toContain(`Drift detected in ${STAGING}`);
    expect(await w.store.hasMessage(run.id)).toBe(true);
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
      { action: 'alert_opened', actor: LEAD1, stack: STAGING },
    ]);
    expect(w.told).toEqual([]);
  });

  it('opens the newest run that superseded the listed one', async () => {
    const w = await world();
    const newest = await w.run(STAGING, 'drifted', { analysis: true });
    const middle = await w.run(STAGING, 'superseded', { supersededBy: newest.id });
    const listed = await w.run(STAGING, 'superseded', { supersededBy: middle.id });
    await handleOpenStack(w.deps, w.click(listed.id, LEAD1, { message: DIGEST }), w.tell);
    expect(await w.store.hasMessage(newest.id)).toBe(true);
    expect(await w.store.hasMessage(listed.id)).toBe(false);
    expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([{ action: 'alert_opened', runId: newest.id }]);
  });

  it('a run whose message is already out is not posted twice: the person is told where it is', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { analysis: true, message: true });
    await handleOpenStack(w.deps, w.click(run.id, LEAD1, { message: DIGEST }), w.tell);
    expect(w.told).toEqual([expect.stringContaining(`${STAGING} is already open: see the digest's thread.`)]);
    expect(w.outbox()).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });

  it('does nothing for a click that came from no message (nowhere to thread it)', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { analysis: true });
    await handleOpenStack(w.deps, w.click(run.id, LEAD1, { message: undefined }), w.tell);
    expect(w.told).toEqual([]);
    expect(w.outbox()).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });

  it('tells of an unknown run and of a stack no longer configured, posting nothing', async () => {
    const w = await world();
    const gone = await w.run(GONE, 'drifted', { analysis: true });
    await handleOpenStack(w.deps, w.click('r_missing', LEAD1, { message: DIGEST }), w.tell);
    await handleOpenStack(w.deps, w.click(gone.id, LEAD1, { message: DIGEST }), w.tell);
    expect(w.told).toEqual([
      expect.stringContaining('there is no run r_missing'),
      expect.stringContaining("stack legacy/vpc is no longer in driftgate's config"),
    ]);
    expect(w.outbox()).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });
});

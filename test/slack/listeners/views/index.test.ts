import { describe, expect, it } from 'vitest';
import { REJECT_MODAL } from '../../../../src/slack/action-ids.js';
import { register } from '../../../../src/slack/listeners/views/index.js';
import { boltWith, LEAD1, MESSAGE, OUTSIDER, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();

const submission = (userId: string, metadata: string | undefined, reason: string) => ({
  type: 'view_submission',
  user: { id: userId },
  team: { id: 'T111' },
  view: {
    callback_id: REJECT_MODAL.callbackId,
    ...(metadata === undefined ? {} : { private_metadata: metadata }),
    state: {
      values: {
        [REJECT_MODAL.reasonBlockId]: { [REJECT_MODAL.reasonActionId]: { type: 'plain_text_input', value: reason } },
      },
    },
  },
});

describe('views register()', () => {
  it('acks, then rejects the run as a job', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    const bolt = boltWith(w, register);
    await bolt.send(submission(LEAD1, run.id, 'intended'));
    expect(bolt.order).toEqual(['ack', 'job reject']);
    expect((await w.store.getRun(run.id))?.state).toBe('rejected');
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
      { action: 'rejected', actor: LEAD1, detail: { reason: 'intended' } },
    ]);
  });

  it("tells a refused person ephemerally in the channel of the run's message, through the outbox", async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { message: true });
    await boltWith(w, register).send(submission(OUTSIDER, run.id, 'no'));
    expect((await w.store.getRun(run.id))?.state).toBe('drifted');
    const [told, ...rest] = w.outbox();
    expect(rest).toEqual([]);
    expect(told).toMatchObject({
      key: `stack:${STAGING}`,
      method: 'chat.postEphemeral',
      payload: { channel: MESSAGE.channel, user: OUTSIDER },
    });
    expect(JSON.stringify(told!.payload)).toContain('can reject this plan');
  });

  it('acks, logs and ignores a submission without the run id', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    const bolt = boltWith(w, register);
    await bolt.send(submission(LEAD1, undefined, 'x'));
    expect(bolt.order).toEqual(['ack']);
    expect(w.warnings()).toContain('malformed reject submission; ignored');
    expect(w.warnings()).toContain('view.private_metadata');
    expect((await w.store.getRun(run.id))?.state).toBe('drifted');
    expect(await w.audit()).toEqual([]);
  });
});

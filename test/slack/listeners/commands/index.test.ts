import { describe, expect, it } from 'vitest';
import { register } from '../../../../src/slack/listeners/commands/index.js';
import { boltWith, LEAD1, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();

const command = (text: string, userId: string, responseUrl?: string) => ({
  command: '/drift',
  text,
  user_id: userId,
  channel_id: 'C0ALERTS',
  team_id: 'T111',
  ...(responseUrl ? { response_url: responseUrl } : {}),
});

describe('commands register()', () => {
  it('acks before the work, runs the parsed subcommand as a job and answers through the response_url', async () => {
    const w = await world();
    const bolt = boltWith(w, register);
    await bolt.send(command(`show ${STAGING}`, LEAD1, w.emulator.responseUrl('show')));
    expect(bolt.order).toEqual(['ack', 'job /drift show']);
    expect(JSON.stringify(w.emulator.responses('show').map((r) => r.body))).toContain(
      `${STAGING} has not been checked yet`,
    );
  });

  it("a handler that throws: the details go to the log, the person learns it failed on driftgate's side", async () => {
    const w = await world();
    w.scheduler.answer = () => {
      throw new Error('scheduler exploded at /var/lib/driftgate');
    };
    const bolt = boltWith(w, register);
    await bolt.send(command(`check ${STAGING}`, LEAD1, w.emulator.responseUrl('check')));
    const told = JSON.stringify(w.emulator.responses('check').map((r) => r.body));
    expect(told).toContain("/drift check failed on driftgate's side; the details are in its log.");
    expect(told).not.toContain('exploded');
    const errors = w.app.logs.filter((l) => l.includes('"level":50')).join('');
    expect(errors).toContain('/drift failed');
    expect(errors).toContain('scheduler exploded at /var/lib/driftgate');
    expect(errors).toContain('"subcommand":"check"');
  });

  it('acks, logs and ignores a command without a user id', async () => {
    const w = await world();
    const bolt = boltWith(w, register);
    await bolt.send(command(`check ${STAGING}`, '', w.emulator.responseUrl('malformed')));
    expect(bolt.order).toEqual(['ack']);
    expect(w.warnings()).toContain('malformed /drift payload; ignored');
    expect(w.warnings()).toContain('user_id');
    expect(w.emulator.responses('malformed')).toEqual([]);
    expect(w.recorded.scheduled).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });
});

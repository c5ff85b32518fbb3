import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { postChangeEvent, SECRET, tagEvent } from '../../helpers/change-events-serve.js';
import type { SlackServe } from '../../helpers/slack-serve.js';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, OUTSIDER } from '../fixtures.js';
import { ask, postEvent } from './helpers.js';

const startServe = useSlackServe();
const EVENT_ID = '7d3c1f0e-2a4b-4c6d-8e9f-0a1b2c3d4e5f';

/**
 * `/drift events` through serve: signed commands to the Bolt HTTP receiver, and a change event for a
 * bucket no stack manages POSTed to the real push door before it.
 */
async function serveWithEvents(changeEvents = true, slackUsers: Record<string, string> = {}): Promise<SlackServe> {
  return startServe({
    stacks: { 'prod/network': NETWORK },
    stackSettings: { 'prod/network': { environment: 'prod' } },
    config: {
      ...APPROVERS,
      ...(changeEvents
        ? { changeEvents: { secretEnv: 'EVENTS_SECRET', cloudTrail: { lookup: false }, slackUsers } }
        : {}),
    },
    env: { EVENTS_SECRET: SECRET },
  });
}

/** Waits until the store keeps `n` unmatched changes: serve writes them after answering the event. */
async function kept(h: SlackServe, n: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { changes } = await h.running.context.store.listUnmatchedChanges({ since: new Date(0), limit: n });
    if (changes.length >= n) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the store never kept ${n} unmatched changes`);
}

/** Opens `user`'s Home tab as Slack does (a signed app_home_opened) and gives the view published for it. */
async function openHome(h: SlackServe, user: string): Promise<string> {
  const before = h.emulator.views().length;
  expect((await postEvent(h, { type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' })).status).toBe(200);
  // Bolt acks an event before its listener runs: wait for the view (bounded).
  for (let i = 0; i < 200 && h.emulator.views().length === before; i++) {
    await new Promise((r) => setTimeout(r, 20));
    await h.settle();
  }
  const published = h.emulator.views().slice(before);
  expect(published.map((v) => [v.kind, v.userId])).toEqual([['home', user]]);
  return JSON.stringify(published[0]!.view.blocks);
}

describe('/drift events', () => {
  it('lists a change to a resource no stack manages to an approver, newest first, with who and the call', async () => {
    const h = await serveWithEvents();
    expect((await ask(h, 'events', LEAD1)).answers).toEqual([
      expect.stringContaining('No change to a resource no stack manages in the last 7 days.'),
    ]);
    const posted = await postChangeEvent(h.base, tagEvent('someone-elses-bucket', 'x.txt', 'bob-cli', EVENT_ID));
    expect(posted.status).toBe(202);
    await kept(h, 1);
    const { status, answers } = await ask(h, 'events', LEAD1);
    expect(status).toBe(200);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain('Changes to resources no stack manages');
    expect(answers[0]).toContain('*bob (IAM user)* with the AWS CLI: `PutObjectTagging`');
    expect(answers[0]).toContain('`arn:aws:s3:::someone-elses-bucket/x.txt`');
    expect(answers[0]).toContain('from `198.51.100.7`');
    expect(answers[0]).toContain(`#/events/${EVENT_ID}|CloudTrail event>`);
  });

  it('is refused to someone who may approve no stack, and says so when change events are off', async () => {
    const h = await serveWithEvents();
    expect((await ask(h, 'events', OUTSIDER)).answers).toEqual([
      expect.stringContaining('Listing cloud changes takes someone who may approve a stack'),
    ]);
    // The helper closes only the latest serve after a test: this one is closed here.
    await h.close();
    const off = await serveWithEvents(false);
    expect((await ask(off, 'events', LEAD1)).answers).toEqual([
      expect.stringContaining('Cloud change events are not set up'),
    ]);
    expect(await openHome(off, LEAD1)).not.toContain('no stack manages');
  });

  it("shows an approver the last 24 hours' on the App Home, nobody else, and the rest of the Home when they cannot be read", async () => {
    const h = await serveWithEvents(true, { 'arn:aws:iam::111122223333:user/bob': 'U0BOB' });
    expect(await openHome(h, LEAD1)).toContain('No changes to unmanaged resources in the last 24 hours.');
    for (const [bucket, who, id] of [
      ['someone-elses-bucket', 'bob-cli', EVENT_ID],
      ['another-bucket', 'alice-console', '0f1e2d3c-4b5a-4968-8776-655443322110'],
    ] as const)
      expect((await postChangeEvent(h.base, tagEvent(bucket, 'x.txt', who, id))).status).toBe(202);
    await kept(h, 2);

    const lead = await openHome(h, LEAD1);
    expect(lead).toContain('Changes to resources no stack manages');
    expect(lead).toContain('*2 changes* in the last 24 hours:');
    expect(lead).toContain('<@U0BOB> (bob (IAM user)): `PutObjectTagging` `arn:aws:s3:::someone-elses-bucket/x.txt`');
    expect(lead).toContain('*alice@example.com (Identity Center, AdministratorAccess)*: `PutObjectTagging`');
    expect(lead).toContain('`/drift events` lists them all');
    const outsider = await openHome(h, OUTSIDER);
    expect(outsider).toContain('Recent activity');
    expect(outsider).not.toContain('no stack manages');
    expect(outsider).not.toContain('PutObjectTagging');

    // A row the store cannot read, as an operator with a SQL shell could leave: listing it fails.
    const db = new Database(join(h.tf.dir, 'data', 'driftgate.db'));
    try {
      db.prepare(
        `INSERT INTO unmatched_changes (event_id, at, received_at, change) VALUES ('bad', ?, ?, '{"eventName": 3}')`,
      ).run(Date.now(), Date.now());
    } finally {
      db.close();
    }
    const failed = await openHome(h, LEAD1);
    expect(failed).toContain('These changes could not be read; the details are in the log.');
    expect(failed).toContain('prod/network');
    expect(h.logs.some((l) => l.includes('changes to unmanaged resources could not be read'))).toBe(true);
  });
});

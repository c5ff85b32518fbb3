import { describe, expect, it } from 'vitest';
import { postChangeEvent, SECRET, tagEvent } from '../../helpers/change-events-serve.js';
import type { SlackServe } from '../../helpers/slack-serve.js';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, OUTSIDER } from '../flows/fixtures.js';
import { ask } from './helpers.js';

const startServe = useSlackServe();
const EVENT_ID = '7d3c1f0e-2a4b-4c6d-8e9f-0a1b2c3d4e5f';

/**
 * `/drift events` through serve: signed commands to the Bolt HTTP receiver, and a change event for a
 * bucket no stack manages POSTed to the real push door before it.
 */
async function serveWithEvents(changeEvents = true): Promise<SlackServe> {
  return startServe({
    stacks: { 'prod/network': NETWORK },
    stackSettings: { 'prod/network': { environment: 'prod' } },
    config: {
      ...APPROVERS,
      ...(changeEvents
        ? { changeEvents: { secretEnv: 'EVENTS_SECRET', cloudTrail: { lookup: false }, slackUsers: {} } }
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
    const off = await serveWithEvents(false);
    expect((await ask(off, 'events', LEAD1)).answers).toEqual([
      expect.stringContaining('Cloud change events are not set up'),
    ]);
  });
});

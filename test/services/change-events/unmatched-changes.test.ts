import { afterEach, describe, expect, it } from 'vitest';
import { UNMATCHED_LIMITS, type UnmatchedChange } from '../../../src/domain/change-events/unmatched.js';
import { runRetention } from '../../../src/services/runtime/retention.js';
import { createUnmatchedChangeRecorder } from '../../../src/services/change-events/unmatched-changes.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';

const DAY = 86_400_000;
const STACK = 'resource "terraform_data" "queue" {}\n';

function change(i: number, at: Date): UnmatchedChange {
  return {
    principal: { kind: 'iam_user', name: 'alice', display: 'alice (IAM user)' },
    how: 'console',
    eventName: 'PutBucketTagging',
    eventSource: 's3.amazonaws.com',
    at: new Date(at.getTime() + i),
    eventId: `event-${String(i).padStart(6, '0')}`,
    account: '111122223333',
    region: 'eu-west-1',
    resources: [`arn:aws:s3:::bucket-${i}`],
  };
}

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('the unmatched change recorder', () => {
  it('keeps the newest of a burst of 10,000 and counts every one', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps, store } = app.context;
    const recorder = createUnmatchedChangeRecorder(deps);
    const start = app.now.value;
    for (let i = 0; i < 10_000; i++) recorder.add(change(i, start));
    await recorder.flush();
    const listed = await store.listUnmatchedChanges({ since: new Date(start.getTime() - DAY), limit: 1_000 });
    expect(listed.counted).toBe(10_000);
    expect(listed.changes).toHaveLength(UNMATCHED_LIMITS.changes);
    expect(listed.changes[0]?.eventId).toBe('event-009999');
    expect(listed.changes.at(-1)?.eventId).toBe(`event-00${10_000 - UNMATCHED_LIMITS.changes}`);
  });

  it('says in the log when the store cannot keep them', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps, store } = app.context;
    const recorder = createUnmatchedChangeRecorder(deps);
    recorder.add(change(1, app.now.value));
    await store.close();
    recorder.add(change(2, app.now.value));
    await recorder.flush();
    expect(app.logs.join('\n')).toContain('change events: the unmatched changes were not stored');
  });

  it('daily retention drops what is older than a week', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps, store, config } = app.context;
    const recorder = createUnmatchedChangeRecorder(deps);
    recorder.add(change(1, app.now.value));
    await recorder.flush();
    // Matched changes of a stack no check took (removed from the config) go after a week too.
    await store.addPendingChanges('gone/stack', [{ ...change(2, app.now.value), resources: [] }]);
    app.now.value = new Date(app.now.value.getTime() + 8 * DAY);
    const removed = await runRetention({ ...deps, store }, { outbox: config.defaults.outboxRetention });
    expect(removed.unmatchedChanges).toBe(1);
    expect(removed.pendingChanges).toBe(1);
    expect((await store.readPendingChanges('gone/stack')).changes).toEqual([]);
    expect(await store.listUnmatchedChanges({ since: new Date(0), limit: 10 })).toEqual({ changes: [], counted: 0 });
  });
});

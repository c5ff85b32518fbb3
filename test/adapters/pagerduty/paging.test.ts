import { describe, expect, it } from 'vitest';
import { createSlackApi } from '../../../src/adapters/slack/api.js';
import { pageItem } from '../../../src/domain/oncall/page-item.js';
import { mergeConfig, slack, stackEntry, type ConfigPatch } from '../../helpers/config-builder.js';
import { startSlackEmulator } from '../../helpers/slack-emulator.js';
import { BACKOFF, CONFIG, KEY_PROD, KEY_ROTATED, PLAN_VALUE, usePagingFixture } from './paging-fixture.js';

const DEDUP = 'driftgate:prod/networking';

describe('paging on-call through the outbox', () => {
  const fx = usePagingFixture();

  it('pages a routed stack once per drift and resolves it with the same dedup_key, in order', async () => {
    const { store, worker, drift, resolve } = await fx.open();
    const run = await drift('prod/networking');
    await drift('dev/sandbox');
    await resolve('prod/networking');
    expect(await worker.drain()).toBe(2);

    const pages = fx.receiver.accepted();
    expect(pages.map((p) => [p.event_action, p.dedup_key, p.routing_key])).toEqual([
      ['trigger', DEDUP, KEY_PROD],
      ['resolve', DEDUP, KEY_PROD],
    ]);
    expect(pages[0]).toMatchObject({
      payload: {
        summary: `Drift in prod/networking: ~1 -1 (run ${run.id})`,
        source: 'driftgate',
        severity: 'critical',
        component: 'prod/networking',
        group: 'prod',
        custom_details: {
          run_id: run.id,
          first_seen: '2025-01-01T00:00:00.000Z',
          resources: ['update terraform_data.vpc', 'delete terraform_data.old'],
        },
      },
    });
    expect(JSON.stringify(pages)).not.toContain(PLAN_VALUE);
    expect(await store.pendingCount()).toBe(0);
    expect((await store.listAudit({ stack: 'prod/networking' })).map((a) => a.action)).toEqual([
      'page_triggered',
      'page_resolved',
    ]);
    // dev/sandbox has no routing: no page, no outbox item, no audit.
    expect(await store.listAudit({ stack: 'dev/sandbox' })).toEqual([]);
    expect(fx.handlerErrors).toEqual([]);
  });

  const WITH_SLACK = mergeConfig(CONFIG, slack('C0ALERTS', { channels: [{ match: 'prod/*', channel: 'C0PROD' }] }));
  const WORKSPACE = 'https://acme.slack.com/';
  const PERMALINK = 'https://acme.slack.com/archives/C0PROD/p1700000001000001';
  it.each([
    {
      name: "the run's message posted after the page was queued",
      slack: true,
      posted: true,
      workspace: WORKSPACE,
      link: { slack_message: PERMALINK },
      clientUrl: PERMALINK,
    },
    {
      name: 'the message not posted yet (held in a digest window)',
      slack: true,
      posted: false,
      workspace: WORKSPACE,
      link: { slack_channel: 'C0PROD' },
    },
    {
      name: 'the workspace address not known yet (auth.test failed)',
      slack: true,
      posted: true,
      workspace: undefined,
      link: { slack_channel: 'C0PROD' },
    },
    { name: 'Slack not configured', slack: false, posted: false, workspace: undefined, link: {} },
  ])(
    'links a trigger into Slack as it is at delivery: $name',
    async ({ slack, posted, workspace, link, clientUrl }) => {
      const { store, worker, drift, resolve } = await fx.open(
        slack ? { config: WITH_SLACK, workspaceUrl: () => workspace } : {},
      );
      const run = await drift('prod/networking');
      if (posted) await store.setMessage({ runId: run.id, channel: 'C0PROD', ts: '1700000001.000001' });
      await resolve('prod/networking');
      expect(await worker.drain()).toBe(2);

      const [trigger, resolved] = fx.receiver.accepted();
      const details = (trigger!.payload as { custom_details: Record<string, unknown> }).custom_details;
      expect({ slack_message: details.slack_message, slack_channel: details.slack_channel }).toEqual({
        slack_message: undefined,
        slack_channel: undefined,
        ...link,
      });
      expect(details).toMatchObject({ run_id: run.id, counts: { update: 1, delete: 1 } });
      expect(trigger!.client_url).toBe(clientUrl);
      expect(resolved).toEqual({ event_action: 'resolve', dedup_key: DEDUP, routing_key: KEY_PROD });
    },
  );

  it('wakes nobody for a silenced stack, and says so in the audit log', async () => {
    const { store, worker, drift } = await fx.open();
    await store.silence({
      stack: 'prod/networking',
      until: new Date(Date.parse('2025-01-02T00:00:00Z')),
      by: 'U0LEAD1',
      reason: 'migration',
    });
    await drift('prod/networking');
    expect(await worker.drain()).toBe(0);
    expect(fx.receiver.accepted()).toEqual([]);
    expect((await store.listAudit({ stack: 'prod/networking' })).map((a) => [a.action, a.detail?.reason])).toEqual([
      ['page_held', 'silenced'],
    ]);
  });

  it('delivers exactly one trigger through an outage of 5xx, 429 and refused connections', async () => {
    const { store, worker, drift } = await fx.open();
    await drift('prod/networking');
    fx.receiver.failNext(2, { status: 500 });
    fx.receiver.failNext(1, { status: 503 });
    fx.receiver.rateLimitNext(1, 30);

    for (let i = 0; i < 3; i++) {
      expect(await worker.drain()).toBe(0);
      fx.advance(BACKOFF.maxMs);
    }
    // The 429: not before its Retry-After, by the injected clock.
    expect(await worker.drain()).toBe(0);
    fx.advance(29_999);
    expect(await worker.drain()).toBe(0);
    expect(fx.receiver.calls()).toHaveLength(4);

    await fx.receiver.down();
    fx.advance(1);
    expect(await worker.drain()).toBe(0);
    const [waiting] = await store.due(new Date(Date.parse('2100-01-01')), 10);
    expect(waiting).toMatchObject({ attempts: 5, lastError: expect.stringContaining('could not reach PagerDuty') });

    await fx.receiver.up();
    fx.advance(BACKOFF.maxMs);
    expect(await worker.drain()).toBe(1);
    fx.advance(BACKOFF.maxMs * 10);
    expect(await worker.drain()).toBe(0);
    expect(fx.receiver.calls().map((c) => c.status)).toEqual([500, 500, 503, 429, 202]);
    expect(fx.receiver.accepted().map((p) => p.event_action)).toEqual(['trigger']);
    expect(fx.log.lines.filter((l) => l.includes('pagerduty outbox item failed; will retry'))).toHaveLength(5);
  });

  it('dead-letters an event PagerDuty refuses with 400 after one try, and goes on with the stack', async () => {
    const failed: [string, boolean][] = [];
    const { store, worker, resolve, drift } = await fx.open({
      worker: { onFailed: (_item, error, { dead }) => void failed.push([error, dead]) },
    });
    await drift('prod/networking');
    // A page an enqueuer got wrong: PagerDuty takes no trigger without a payload.
    await store.enqueue(
      pageItem('prod/networking', {
        routingKeyEnv: 'PD_KEY_PROD',
        event: { event_action: 'trigger', dedup_key: DEDUP } as never,
      }),
    );
    await resolve('prod/networking');

    expect(await worker.drain()).toBe(2);
    fx.advance(BACKOFF.maxMs * 10);
    expect(await worker.drain()).toBe(0);
    expect(fx.receiver.calls().map((c) => [c.body.event_action, c.status])).toEqual([
      ['trigger', 202],
      ['trigger', 400],
      ['resolve', 202],
    ]);
    expect(failed).toEqual([["pagerduty: HTTP 400: Event object is invalid ('payload' is missing)", true]]);
    expect(await store.pendingCount()).toBe(0);
    expect(fx.log.lines.find((l) => l.includes('pagerduty outbox item failed permanently; dead-lettered'))).toContain(
      'payload',
    );
  });

  it('a new worker on the same database sends the page the previous one left, with the key the environment has now', async () => {
    const first = await fx.open();
    await first.drift('prod/networking');
    await fx.receiver.down();
    first.worker.start(60_000);
    await first.worker.stop();
    await first.close();
    expect(fx.receiver.calls()).toEqual([]);

    await fx.receiver.up();
    // The key was rotated while the page waited: the page holds the variable's name, not the old key.
    const second = await fx.open({ env: { PD_KEY_PROD: KEY_ROTATED } });
    fx.advance(BACKOFF.baseMs);
    expect(await second.worker.drain()).toBe(1);
    expect(fx.receiver.accepted().map((p) => [p.event_action, p.dedup_key, p.routing_key])).toEqual([
      ['trigger', DEDUP, KEY_ROTATED],
    ]);
  });

  it('resolves through the routing its trigger used, after the stack lost its routing', async () => {
    const first = await fx.open();
    await first.drift('prod/networking');
    expect(await first.worker.drain()).toBe(1);
    await first.close();

    const unrouted: ConfigPatch = {
      stacks: [stackEntry('prod/networking', 'net', { environment: 'prod' })],
      pagerduty: { routing: [{ environments: ['dev'], routingKeyEnv: 'PD_KEY_DEV' }] },
    };
    const second = await fx.open({ config: unrouted, env: { PD_KEY_DEV: KEY_ROTATED } });
    await second.resolve('prod/networking');
    expect(await second.worker.drain()).toBe(1);
    expect(fx.receiver.accepted().map((p) => [p.event_action, p.routing_key])).toEqual([
      ['trigger', KEY_PROD],
      ['resolve', KEY_PROD],
    ]);
  });

  it('never writes the routing key to a log line or the database, through failures and dead letters', async () => {
    const { store, worker, drift, resolve } = await fx.open();
    await drift('prod/networking');
    fx.receiver.failNext(1, { status: 500 });
    fx.receiver.rateLimitNext(1, 1);
    await store.enqueue(
      pageItem('prod/networking', {
        routingKeyEnv: 'PD_KEY_PROD',
        event: { event_action: 'trigger', dedup_key: DEDUP } as never,
      }),
    );
    await resolve('prod/networking');
    for (let i = 0; i < 4; i++) {
      await worker.drain();
      fx.advance(BACKOFF.maxMs);
    }
    expect(fx.receiver.calls().map((c) => c.status)).toEqual([500, 429, 202, 400, 202]);
    expect(fx.log.lines.some((l) => l.includes('"level":20'))).toBe(true);
    const logs = fx.log.lines.join('\n');
    expect(logs).not.toContain(KEY_PROD);
    expect(logs).not.toContain(PLAN_VALUE);
    expect(fx.databaseText()).not.toContain(KEY_PROD);
    expect(fx.databaseText()).not.toContain(PLAN_VALUE);
  });

  it('one worker delivers Slack calls and pages: a Slack outage does not hold back a page, nor a page Slack', async () => {
    const emulator = await startSlackEmulator({ token: 'xoxb-paging-test-token' });
    try {
      const api = createSlackApi({ token: emulator.token, apiUrl: emulator.apiUrl, logger: fx.log.logger });
      const { store, worker, drift } = await fx.open({ api });
      await store.enqueue({
        key: 'run-1',
        method: 'chat.postMessage',
        payload: { channel: 'C1', text: 'drift on prod/networking' },
      });
      await drift('prod/networking');
      emulator.failNext(1, { status: 503 });

      expect(await worker.drain()).toBe(1);
      expect(fx.receiver.accepted().map((p) => p.event_action)).toEqual(['trigger']);
      fx.advance(BACKOFF.baseMs);
      expect(await worker.drain()).toBe(1);
      expect(emulator.messages().map((m) => m.text)).toEqual(['drift on prod/networking']);
      expect(fx.log.lines.filter((l) => l.includes('slack outbox item failed; will retry'))).toHaveLength(1);
    } finally {
      await emulator.close();
    }
  });

  it('keeps Slack items for later in a process without Slack, and still pages', async () => {
    const { store, worker, drift } = await fx.open();
    await store.enqueue({ key: 'run-1', method: 'chat.postMessage', payload: { channel: 'C1', text: 'for later' } });
    await drift('prod/networking');
    expect(await worker.drain()).toBe(1);
    expect(fx.receiver.accepted()).toHaveLength(1);
    expect(await store.pendingCount()).toBe(1);
    expect(await store.due(new Date(Date.parse('2100-01-01')), 10)).toMatchObject([
      { method: 'chat.postMessage', lastError: 'Slack is not configured in this process' },
    ]);
  });
});

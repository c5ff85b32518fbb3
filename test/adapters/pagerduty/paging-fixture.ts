/**
 * Per test: a temp dir with a real SQLite file, a PagerDuty receiver on its own port, a settable clock,
 * the real event bus, and pagers and outbox workers built on them. `open()` again on the same dir is a
 * restart: a new store connection, a new pager and a new worker.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { pagerdutySettingsFor } from '../../../src/adapters/pagerduty/env.js';
import { openSqliteStore, type SqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { parseConfig } from '../../../src/config/load.js';
import type { DriftgateConfig } from '../../../src/config/schema.js';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { pagerdutyDeliverers } from '../../../src/adapters/pagerduty/page-deliverer.js';
import { createPager } from '../../../src/services/notify/page-oncall.js';
import { slackLinks } from '../../../src/slack/message-links.js';
import { createEventBus, type EventBus } from '../../../src/services/runtime/event-bus.js';
import type { SlackApi } from '../../../src/ports/slack-api.js';
import { createOutboxWorker, type OutboxWorkerOptions } from '../../../src/services/outbox/outbox-worker.js';
import { planText, resourceChange } from '../../domain/plan/plan-builder.js';
import { configYaml, stackEntry, type ConfigPatch } from '../../helpers/config-builder.js';
import { startPagerdutyReceiver, type PagerdutyReceiver } from '../../helpers/pagerduty-receiver.js';
import { captureLogger } from '../../services/outbox/outbox-fixture.js';
import { manualClock } from '../store/temp-store.js';

export const KEY_PROD = 'c0ffee00c0ffee00c0ffee00c0ffee00';
export const KEY_ROTATED = 'beef0000beef0000beef0000beef0000';
export const BACKOFF = { baseMs: 1000, maxMs: 60_000 };
/** A before/after value of the drifted resource, which must reach no page, log or outbox row. */
export const PLAN_VALUE = 'cidr-from-the-plan-10.9.8.0';

export const CONFIG: ConfigPatch = {
  stacks: [
    stackEntry('prod/networking', 'net', { environment: 'prod' }),
    stackEntry('dev/sandbox', 'sandbox', { environment: 'dev' }),
  ],
  pagerduty: { routing: [{ environments: ['prod'], routingKeyEnv: 'PD_KEY_PROD' }], severity: { prod: 'critical' } },
};

export interface OpenOptions {
  /** Instead of CONFIG. */
  config?: ConfigPatch;
  env?: Record<string, string>;
  api?: SlackApi;
  /** Pages link into Slack as serve wires them, with this workspace and the config's `slack` section. */
  workspaceUrl?: () => string | undefined;
  worker?: Partial<OutboxWorkerOptions>;
}

export function usePagingFixture() {
  let dir = '';
  let receiver: PagerdutyReceiver | undefined;
  const stores = new Set<SqliteStore>();
  const stops: (() => void)[] = [];
  const handlerErrors: unknown[] = [];
  const clock = manualClock();
  const { now } = clock;
  const log = captureLogger();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'driftgate-paging-'));
    receiver = await startPagerdutyReceiver();
    log.lines.length = 0;
    handlerErrors.length = 0;
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    for (const store of stores) await store.close();
    stores.clear();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(options: OpenOptions = {}) {
    const config: DriftgateConfig = await parseConfig(configYaml(options.config ?? CONFIG), { baseDir: dir, env: {} });
    const env = { PD_KEY_PROD: KEY_PROD, PAGERDUTY_EVENTS_URL: receiver!.eventsUrl, ...options.env };
    const settings = pagerdutySettingsFor(config, env)!;
    const store = openSqliteStore({ path: join(dir, 'driftgate.db'), now });
    stores.add(store);
    const bus: EventBus = createEventBus((err) => void handlerErrors.push(err));
    const byName = new Map(config.stacks.map((s) => [s.name, s]));
    for (const stack of config.stacks) await store.upsertStack(stack.name);
    const pager = createPager({ config, bus, store, stack: (name) => byName.get(name), now, logger: log.logger });
    stops.push(() => pager.stop());
    const links =
      options.workspaceUrl && config.slack
        ? slackLinks({ slack: config.slack, store, workspaceUrl: options.workspaceUrl })
        : undefined;
    const worker = createOutboxWorker({
      store,
      ...(options.api ? { api: options.api } : {}),
      deliverers: pagerdutyDeliverers(settings, links),
      now,
      logger: log.logger,
      backoff: BACKOFF,
      // No jitter, so the delays are exact.
      random: () => 1,
      ...options.worker,
    });

    /** A check found new drift: the run, the open drift and the event, as check-stack records them. */
    async function drift(stack: string) {
      const { analysis } = analyzePlan(
        parsePlanJson(
          planText({
            resource_changes: [
              resourceChange({
                address: 'terraform_data.vpc',
                actions: ['update'],
                before: { input: { cidr: PLAN_VALUE } },
                after: { input: { cidr: '10.0.0.0/16' } },
              }),
              resourceChange({ address: 'terraform_data.old', actions: ['delete'], before: { input: 'gone' } }),
            ],
          }),
        ),
      );
      const created = await store.createRun({ stack, trigger: 'schedule' });
      const run = (await store.transition(created.id, 'planning', 'drifted', {
        kind: 'drift',
        fingerprint: analysis.fingerprint,
        counts: analysis.counts,
      }))!;
      await store.openDrift(stack, { fingerprint: analysis.fingerprint, runId: run.id, counts: analysis.counts });
      await bus.publish({ type: 'drift_detected', stack, run, analysis });
      return run;
    }

    /** The next check found the stack in sync again. */
    async function resolve(stack: string) {
      const created = await store.createRun({ stack, trigger: 'schedule' });
      const run = (await store.transition(created.id, 'planning', 'no_changes'))!;
      const closed = (await store.closeDrift(stack))!;
      await bus.publish({
        type: 'drift_resolved',
        stack,
        run,
        previousFingerprint: closed.fingerprint,
        previousRunId: closed.runId,
      });
      return run;
    }

    /** The process stops: its connection to the database closes. */
    async function close() {
      await store.close();
      stores.delete(store);
    }

    return { config, store, bus, worker, drift, resolve, close };
  }

  return {
    get receiver() {
      return receiver!;
    },
    log,
    handlerErrors,
    open,
    advance: clock.advance,
    /** Every byte of the SQLite database and its WAL, as text. */
    databaseText(): string {
      return readdirSync(dir)
        .filter((f) => f.startsWith('driftgate.db'))
        .map((f) => readFileSync(join(dir, f)).toString('latin1'))
        .join('\n');
    },
  };
}

/**
 * Two processes telling one held alert: one resumes it alone (the process that held it died) while
 * another's digest lists it. Each decides in a transaction on the one store, so one of them tells it:
 * here the digest commits just before the single post's transaction begins, the narrowest interleaving.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { digestOnce } from '../../../src/services/notify/alerts.js';
import { runMessaging } from '../../../src/app/run-messaging.js';
import { CHANNEL, STAGING, useListenerWorld } from '../listeners/world.js';

const world = useListenerWorld();

describe('an alert held by a process that died', () => {
  it("is told once when another process's digest lists it as this one posts it", async () => {
    const w = await world();
    const { context } = w.app;
    const run = await w.run(STAGING, 'drifted', { analysis: true });
    // Held in a digest window that closed long ago, by a process that is gone.
    await w.store.appendAudit({
      at: new Date(context.deps.now().getTime() - 3600_000),
      actor: 'system',
      action: 'alert_held',
      runId: run.id,
      stack: run.stack,
      detail: { channel: CHANNEL, until: new Date(context.deps.now().getTime() - 3600_000).toISOString() },
    });

    // The other process's digest commits first, once this process has decided to post and begins to.
    let raced = false;
    const store: Store = new Proxy(w.store, {
      get(target, prop, receiver) {
        if (prop !== 'atomically') return Reflect.get(target, prop, receiver);
        return async (work: Parameters<Store['atomically']>[0]) => {
          if (!raced) {
            raced = true;
            await digestOnce(context.deps, [run], CHANNEL, async (runs, tx) => {
              await tx.enqueue({
                key: `channel:${CHANNEL}`,
                method: 'chat.postMessage',
                payload: { channel: CHANNEL, text: `Drift in ${runs.length} stacks` },
              });
            });
          }
          return target.atomically(work);
        };
      },
    });
    // This process's Slack messaging, wired as serve wires it, on the store the race goes through.
    const { notifier: resuming } = runMessaging({ ...context, store }, { canRemediate: false });
    try {
      await resuming.resume();
    } finally {
      resuming.stop();
    }

    expect(raced).toBe(true);
    const posts = w.outbox().filter((item) => item.method === 'chat.postMessage');
    expect(posts.map((p) => p.key)).toEqual([`channel:${CHANNEL}`]);
    const audit = await w.audit({ runId: run.id });
    expect(audit.filter((a) => a.startsWith('alert_'))).toEqual(['alert_held', 'alert_digested']);
  });
});

import { describe, expect, it } from 'vitest';
import { handleSilence, handleUnsilence } from '../../../../src/slack/listeners/commands/silence.js';
import { LEAD1, ONCALL, OUTSIDER, STAGING, UNRULED, useListenerWorld } from '../world.js';

const world = useListenerWorld();
const HOUR = 3600_000;

describe('handleSilence and handleUnsilence', () => {
  it('silences for the duration with the reason redacted and capped, audits it and says until when (UTC)', async () => {
    const w = await world();
    w.app.now.value = new Date('2025-03-01T12:00:00Z');
    w.deps.secrets.add(STAGING, {
      redact: (text: string) => text.replaceAll('hunter2', '(sensitive value)'),
    } as Parameters<typeof w.deps.secrets.add>[1]);
    await handleSilence(
      w.deps,
      {
        kind: 'silence',
        stack: STAGING,
        durationMs: 2 * HOUR,
        reason: `migration, password hunter2 ${'x'.repeat(600)}`,
      },
      ONCALL,
      w.tell,
    );
    expect(w.told).toEqual([
      expect.stringContaining(`${STAGING} is silenced for 2 h, until 2025-03-01 14:00 UTC: no alerts until then.`),
    ]);
    const silence = (await w.store.getSilence(STAGING, w.app.now.value))!;
    expect(silence.by).toBe(ONCALL);
    expect(silence.until).toEqual(new Date('2025-03-01T14:00:00Z'));
    expect(silence.reason).toMatch(/^migration, password \(sensitive value\) x+$/);
    expect(silence.reason).toHaveLength(500);
    expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
      { action: 'silenced', actor: ONCALL, detail: { until: '2025-03-01T14:00:00.000Z', reason: silence.reason } },
    ]);
  });

  it.each([
    [
      'someone in no approver group',
      STAGING,
      OUTSIDER,
      'not_in_group',
      /Silencing staging\/network takes someone who may approve its plans\. Only members of/,
    ],
    [
      'a stack no rule covers',
      UNRULED,
      LEAD1,
      'no_rule',
      /Silencing dev\/app takes someone who may approve its plans\. No approval rule/,
    ],
  ])('refuses %s: audited as silence_refused, nothing silenced', async (_case, stack, userId, reason, told) => {
    const w = await world();
    await handleSilence(w.deps, { kind: 'silence', stack, durationMs: HOUR }, userId, w.tell);
    expect(w.told).toEqual([expect.stringMatching(told)]);
    expect(await w.store.getSilence(stack, w.app.now.value)).toBeUndefined();
    expect(await w.store.listAudit({})).toMatchObject([
      { action: 'silence_refused', actor: userId, stack, detail: { reason } },
    ]);
  });

  it('refuses more than 30 days, even to an approver, and silences nothing', async () => {
    const w = await world();
    await handleSilence(w.deps, { kind: 'silence', stack: STAGING, durationMs: 31 * 24 * HOUR }, LEAD1, w.tell);
    expect(w.told).toEqual([expect.stringContaining('a silence lasts at most 30 days')]);
    expect(await w.store.getSilence(STAGING, w.app.now.value)).toBeUndefined();
    expect(await w.audit()).toEqual([]);
  });

  it('unsilence is for anyone: it lifts a running silence, and says when there was none; both audited', async () => {
    const w = await world();
    await w.store.silence({ stack: STAGING, until: new Date(w.app.now.value.getTime() + HOUR), by: LEAD1 });
    await handleUnsilence(w.deps, { kind: 'unsilence', stack: STAGING }, OUTSIDER, w.tell);
    await handleUnsilence(w.deps, { kind: 'unsilence', stack: STAGING }, OUTSIDER, w.tell);
    expect(w.told).toEqual([
      expect.stringContaining(`${STAGING} alerts again.`),
      expect.stringContaining(`${STAGING} was not silenced; it alerts as before.`),
    ]);
    expect(await w.store.getSilence(STAGING, w.app.now.value)).toBeUndefined();
    expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
      { action: 'unsilenced', actor: OUTSIDER, detail: { wasSilenced: true } },
      { action: 'unsilenced', actor: OUTSIDER, detail: { wasSilenced: false } },
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, startSlackServe, type SlackServe } from '../../helpers/slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, alerts, driftAgain, makeDrift, textOf } from '../fixtures.js';
import { answers, ask } from './helpers.js';

const DRIFTED = 'staging/network';
const UNCHECKED = 'dev/app';
const PASSWORD = 'correct-horse-battery-staple';

/** The drifting stack also holds a sensitive value, which the check teaches driftgate's redactor. */
const WITH_SECRET = `${NETWORK}
resource "terraform_data" "db" {
  input = sensitive("${PASSWORD}")
}
`;

const sections = (answer: string | undefined): string[] => {
  const [, blocks] = JSON.parse(answer ?? '[null, []]') as [string, { text?: { text: string } }[]];
  return blocks.map((b) => b.text?.text ?? '');
};

/**
 * One serve for the whole describe, in order: a real check, then what the user asks about it. Real
 * terraform runs are the cost here (2 cores), so the stack is applied once and planned twice.
 */
describe('/drift check, status, show, silence and unsilence against real terraform', () => {
  let h: SlackServe;
  const store = () => h.running.context.store;
  beforeAll(async () => {
    h = await startSlackServe({
      stacks: { [DRIFTED]: WITH_SECRET, [UNCHECKED]: NETWORK },
      stackSettings: { [DRIFTED]: { environment: 'staging' }, [UNCHECKED]: { environment: 'dev' } },
      config: APPROVERS,
    });
    await makeDrift(h, DRIFTED);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('acks before the check runs, then says the stack drifted; the alert goes to the channel', async () => {
    const response = await h.command(`check ${DRIFTED}`, LEAD1, 'check-1');
    // Taken the moment the HTTP answer is in: no run of the stack has ended, so the ack did not wait for the
    // plan (the check itself is queued just after the ack, once its audit line is written).
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    const runs = await store().listRuns({ stack: DRIFTED });
    expect(runs.filter((r) => r.state !== 'planning')).toEqual([]);
    expect(answers(h, 'check-1').join('\n')).not.toContain('Check finished');

    await h.settle();
    const [queuedAnswer, summary, ...rest] = answers(h, 'check-1');
    expect(queuedAnswer).toContain(`Queued 1 stack: ${DRIFTED}`);
    expect(summary).toContain('Check finished');
    expect(summary).toContain(`${DRIFTED}: drifted (~1)`);
    expect(rest).toEqual([]);
    for (const r of h.emulator.responses('check-1')) expect(r.body).toMatchObject({ response_type: 'ephemeral' });

    const posted = alerts(h, CHANNEL);
    expect(posted).toHaveLength(1);
    expect(textOf(posted[0])).toContain(`Drift detected in ${DRIFTED}`);
    expect((await store().listAudit({ stack: DRIFTED })).find((a) => a.action === 'check_requested')).toMatchObject({
      actor: LEAD1,
    });
  });

  it('status lists every stack by state after the check', async () => {
    const {
      answers: [status],
    } = await ask(h, 'status', LEAD1);
    expect(JSON.parse(status!)[0]).toContain('2 stacks: 0 in sync, 1 drifted');
    const blocks = sections(status);
    expect(blocks.find((t) => t.includes('*Drifted*'))).toContain(
      `*${DRIFTED}* (staging) · ~1 · 1 pending approval · checked <!date^`,
    );
    expect(blocks.find((t) => t.includes('*Not checked yet*'))).toContain(`*${UNCHECKED}* (dev) · never checked`);
  });

  it('show gives the latest run of the stack and what its plan changes', async () => {
    const [latest] = await store().listRuns({ stack: DRIFTED, limit: 1 });
    const { answers: shown } = await ask(h, `show ${DRIFTED}`, LEAD1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain(`Latest plan: ${DRIFTED}`);
    expect(shown[0]).toContain(latest!.id);
    expect(shown[0]).toContain('terraform_data.vpc');
    expect(shown[0]).not.toContain(PASSWORD);

    const { answers: never } = await ask(h, `show ${UNCHECKED}`, LEAD1);
    expect(never[0]).toContain('has not been checked yet');
  });

  it('silence keeps the next drift from alerting, and stores the reason redacted', async () => {
    const { answers: said } = await ask(h, `silence ${DRIFTED} 2h migrating the db, password ${PASSWORD}`, LEAD1);
    expect(said[0]).toMatch(new RegExp(`${DRIFTED} is silenced for 2 h, until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));
    const silence = await store().getSilence(DRIFTED, h.now.value);
    expect(silence).toMatchObject({ by: LEAD1, reason: 'migrating the db, password (sensitive value)' });
    expect(silence!.until.getTime() - h.now.value.getTime()).toBe(2 * 3600_000);
    const audit = await store().listAudit({ stack: DRIFTED });
    expect(audit.find((a) => a.action === 'silenced')).toMatchObject({ actor: LEAD1 });
    expect(JSON.stringify(audit)).not.toContain(PASSWORD);

    await driftAgain(h, DRIFTED, 'night-shift');
    // The harness clock stands still unless moved; a minute later keeps "the newest run" unambiguous.
    h.now.value = new Date(h.now.value.getTime() + 60_000);
    const { answers: checked } = await ask(h, `check ${DRIFTED}`, LEAD1);
    expect(checked[1]).toContain(`${DRIFTED}: drifted (~1)`);
    const [newest] = await store().listRuns({ stack: DRIFTED, limit: 1 });
    expect((await store().listAudit({ runId: newest!.id })).map((a) => a.action)).toContain('alert_silenced');
    expect(alerts(h, CHANNEL)).toHaveLength(1);
  });

  it('unsilence lifts the silence, and says so when there was none', async () => {
    const { answers: first } = await ask(h, `unsilence ${DRIFTED}`, LEAD1);
    expect(first[0]).toContain(`${DRIFTED} alerts again.`);
    expect(await store().getSilence(DRIFTED, h.now.value)).toBeUndefined();
    expect((await store().listAudit({ stack: DRIFTED })).find((a) => a.action === 'unsilenced')).toMatchObject({
      actor: LEAD1,
      detail: { wasSilenced: true },
    });

    const { answers: again } = await ask(h, `unsilence ${DRIFTED}`, LEAD1);
    expect(again[0]).toContain('was not silenced');
  });
});

import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { SIGNING_SECRET, type SlackServe } from '../../helpers/slack-serve.js';
import { postSigned, slashCommand } from '../../helpers/slack-signing.js';
import { APPROVERS, LEAD1, NETWORK, OUTSIDER } from '../fixtures.js';
import { ask, postEvent } from './helpers.js';

const STACK = 'staging/network';
const OTHER = 'dev/app';

const startServe = useSlackServe();

/** No terraform runs in this file: a serve with two stacks that were never checked. */
async function serve(): Promise<SlackServe> {
  const h = await startServe({
    stacks: { [STACK]: NETWORK, [OTHER]: NETWORK },
    stackSettings: { [STACK]: { environment: 'staging' }, [OTHER]: { environment: 'dev' } },
    config: APPROVERS,
  });
  return h;
}

describe('/drift answers that need no plan', () => {
  it('help lists the commands, and a bare /drift is the status', async () => {
    const h = await serve();
    const help = await ask(h, 'help', LEAD1);
    expect(help.status).toBe(200);
    expect(help.answers).toHaveLength(1);
    for (const usage of ['/drift check', '/drift show', '/drift silence', '/drift unsilence', '/drift unlock'])
      expect(help.answers[0]).toContain(usage);

    const { answers: status } = await ask(h, '', LEAD1);
    expect(status[0]).toContain('2 stacks: 0 in sync, 0 drifted');
    expect(status[0]).toContain(`*${STACK}* (staging) · never checked`);
    expect(status[0]).toContain(`*${OTHER}* (dev) · never checked`);
  });

  it('an unknown subcommand and a misspelt stack get an error with the closest match', async () => {
    const h = await serve();
    const { answers: sub } = await ask(h, `chek ${STACK}`, LEAD1);
    expect(sub[0]).toContain('unknown subcommand `chek`');
    expect(sub[0]).toContain('Did you mean `check`');

    const { answers: stack } = await ask(h, 'show staging/netwrk', LEAD1);
    expect(stack[0]).toContain('no stack named `staging/netwrk`');
    expect(stack[0]).toContain(`Did you mean \`${STACK}\``);

    const { answers: glob } = await ask(h, 'check stagin/*', LEAD1);
    expect(glob[0]).toContain('no stack matches `stagin/*`');
    expect(await h.running.context.store.listRuns()).toEqual([]);
  });

  it('acks a malformed command body with 200, ignores it, and keeps serving', async () => {
    const h = await serve();
    const events = `${h.base}/slack/events`;
    const malformed = slashCommand('check all', '', {
      channel_id: 'C0ALERTS',
      response_url: h.emulator.responseUrl('malformed'),
    });
    const response = await postSigned(events, SIGNING_SECRET, malformed);
    expect(response.status).toBe(200);
    await h.settle();
    expect(h.emulator.responses('malformed')).toEqual([]);
    expect(h.running.scheduler.status()).toEqual({ running: [], queued: [] });
    expect(h.logs.join('')).toContain('malformed /drift payload; ignored');

    const { answers: after } = await ask(h, 'help', LEAD1);
    expect(after[0]).toContain('/drift check');
  });

  it('unlock is refused to a non-approver and done for an approver, both audited', async () => {
    const h = await serve();
    const store = h.running.context.store;
    const run = await store.createRun({ stack: STACK, trigger: 'schedule' });
    expect((await store.acquireLock(STACK, run.id, 3600_000)).acquired).toBe(true);
    await store.blockStack(STACK, 'apply interrupted');

    const { answers: refused } = await ask(h, `unlock ${STACK}`, OUTSIDER);
    expect(refused[0]).toContain(`Unlocking ${STACK} takes someone who may approve its plans`);
    expect(refused[0]).toContain('Only members of sre-leads');
    expect((await store.getStack(STACK))?.blockedReason).toBe('apply interrupted');
    expect((await store.getLock(STACK))?.runId).toBe(run.id);
    expect((await store.listAudit({ stack: STACK })).find((a) => a.action === 'unlock_refused')).toMatchObject({
      actor: OUTSIDER,
      detail: { reason: 'not_in_group' },
    });
    expect((await store.listAudit({ stack: STACK })).map((a) => a.action)).not.toContain('unlock');

    const { answers: done } = await ask(h, `unlock ${STACK}`, LEAD1);
    expect(done[0]).toContain(`${STACK}: lifted the block (apply interrupted) and broke the lock of run ${run.id}`);
    expect((await store.getStack(STACK))?.blockedReason).toBeUndefined();
    expect(await store.getLock(STACK)).toBeUndefined();
    expect((await store.listAudit({ stack: STACK })).find((a) => a.action === 'unlock')).toMatchObject({
      actor: LEAD1,
      detail: { blockedReason: 'apply interrupted', brokenLock: run.id },
    });

    const { answers: nothing } = await ask(h, `unlock ${STACK}`, LEAD1);
    expect(nothing[0]).toContain('was neither blocked nor locked');
  });

  it('silence is refused to a non-approver and capped at 30 days, since it hides drift', async () => {
    const h = await serve();
    const store = h.running.context.store;
    const { answers: refused } = await ask(h, `silence ${STACK} 2h quiet please`, OUTSIDER);
    expect(refused[0]).toContain(`Silencing ${STACK} takes someone who may approve its plans`);
    expect(await store.getSilence(STACK, h.now.value)).toBeUndefined();
    expect((await store.listAudit({ stack: STACK })).find((a) => a.action === 'silence_refused')).toMatchObject({
      actor: OUTSIDER,
      detail: { reason: 'not_in_group' },
    });

    const { answers: tooLong } = await ask(h, `silence ${STACK} 60d`, LEAD1);
    expect(tooLong[0]).toContain('a silence lasts at most 30 days');
    expect(await store.getSilence(STACK, h.now.value)).toBeUndefined();
  });
});

describe('app_home_opened', () => {
  it('publishes the Home tab listing the stacks, and nothing for the Messages tab', async () => {
    const h = await serve();
    expect(
      (await postEvent(h, { type: 'app_home_opened', user: OUTSIDER, channel: 'D0MSG', tab: 'messages' })).status,
    ).toBe(200);
    expect((await postEvent(h, { type: 'app_home_opened', user: LEAD1, channel: 'D0HOME', tab: 'home' })).status).toBe(
      200,
    );
    // Bolt acks an event before its listener runs: wait for the view (bounded), then look at all of them.
    for (let i = 0; i < 100 && h.emulator.views().length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      await h.settle();
    }
    const views = h.emulator.views();
    expect(views.map((v) => [v.kind, v.userId])).toEqual([['home', LEAD1]]);
    const blocks = JSON.stringify(views[0]!.view.blocks);
    expect(blocks).toContain(STACK);
    expect(blocks).toContain(OTHER);
  });
});

import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../../src/slack/action-ids.js';
import { approvers, type ConfigPatch } from '../../helpers/config-builder.js';
import { CHANNEL, type SlackServe } from '../../helpers/slack-serve.js';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { LEAD1, NETWORK } from '../fixtures.js';
import { ask } from './helpers.js';

const startServe = useSlackServe();
const PROD_CHANNEL = 'C0PROD';
const DEV = 'U0DEVELOPER';
const GUEST = 'U0GUEST';
const PROD = 'prod/db';
const DEVSTACK = 'dev/app';

/**
 * prod/db alerts in C0PROD and is approved by LEAD1 (in no channel); dev/app alerts in the default
 * channel, whose member DEV approves nothing; GUEST, a guest, is in both channels.
 */
async function workspace(more: ConfigPatch = {}): Promise<SlackServe> {
  const h = await startServe({
    stacks: { [PROD]: NETWORK, [DEVSTACK]: NETWORK },
    stackSettings: { [PROD]: { environment: 'prod' }, [DEVSTACK]: { environment: 'dev' } },
    config: {
      ...approvers({ 'sre-leads': [LEAD1] }, [{ environments: ['prod'], from: ['sre-leads'] }]),
      slack: { channels: [{ match: 'prod/*', channel: PROD_CHANNEL }], ...more.slack },
    },
  });
  h.emulator.seedMembers(CHANNEL, [DEV, GUEST]);
  h.emulator.seedMembers(PROD_CHANNEL, [GUEST]);
  h.emulator.seedUser({ id: GUEST, name: 'guest', is_restricted: true });
  return h;
}

const shows = (answer: string | undefined, stack: string) => (answer ?? '').includes(stack);

describe('who may read plans (slack.visibility)', () => {
  it('shows each person the stacks of their channels and those they may approve, and guests nothing', async () => {
    const h = await workspace();
    const [dev] = (await ask(h, 'status', DEV)).answers;
    expect(shows(dev, DEVSTACK)).toBe(true);
    expect(shows(dev, PROD)).toBe(false);
    expect(dev).toContain('1 stack not shown');

    const [lead] = (await ask(h, 'status', LEAD1)).answers;
    expect(shows(lead, PROD)).toBe(true);
    expect(shows(lead, DEVSTACK)).toBe(false);

    const [guest] = (await ask(h, 'status', GUEST)).answers;
    expect(shows(guest, PROD) || shows(guest, DEVSTACK)).toBe(false);
    expect(guest).toContain('2 stacks not shown');

    expect((await ask(h, `show ${PROD}`, DEV)).answers.join('\n')).toContain('once you are in its alert channel');
    expect((await ask(h, `show ${DEVSTACK}`, DEV)).answers.join('\n')).toContain(DEVSTACK);
    expect((await ask(h, `show ${DEVSTACK}`, GUEST)).answers.join('\n')).toContain('once you are in its alert channel');
  });

  it('checks any stack for anyone, and tells each person only the results they may read', async () => {
    // Failed before: the "Check finished" lines gave every stack's counts and errors to whoever asked.
    const h = await workspace();
    const { answers } = await ask(h, `check ${PROD} ${DEVSTACK}`, DEV);
    const finished = answers.find((a) => a.includes('Check finished')) ?? '';
    expect(finished).toContain(`${DEVSTACK}: drifted (+1)`);
    expect(finished).toContain(`${PROD}: checked; its result went to its alert channel`);
    expect(finished).not.toContain(`${PROD}: drifted`);
    // Both were checked all the same: the prod alert went to its own channel.
    expect(h.emulator.messages(PROD_CHANNEL).some((m) => JSON.stringify(m).includes(PROD))).toBe(true);
  });

  it('checks only the stacks a person may see for `check all` or a glob, and names no other', async () => {
    // Failed before: `check all` queued every stack and named each in both answers, prod/db included.
    const h = await workspace();
    for (const text of ['check all', 'check */*']) {
      const { answers } = await ask(h, text, DEV);
      const said = answers.join('\n');
      expect(said).toContain(`Queued 1 stack: ${DEVSTACK}.`);
      expect(said).toContain(`${DEVSTACK}: drifted (+1)`);
      expect(said).not.toContain(PROD);
    }
    // prod/db was not checked for DEV: no alert went to its channel, no run, no audit of it.
    expect(h.emulator.messages(PROD_CHANNEL)).toEqual([]);
    expect(await h.running.context.store.listRuns({ stack: PROD })).toEqual([]);
    expect((await h.running.context.store.listAudit({})).filter((a) => a.stack === PROD)).toEqual([]);

    // A guest sees no stack: nothing is checked, and nothing named.
    const guest = (await ask(h, 'check all', GUEST)).answers.join('\n');
    expect(guest).toContain('None of the stacks this selects is one you may see, so nothing was checked.');
    expect(shows(guest, PROD) || shows(guest, DEVSTACK)).toBe(false);
  });

  it('checks nothing for `check all` when Slack cannot say who may see what', async () => {
    const h = await workspace();
    h.emulator.failNext(1, { status: 503 });
    const said = (await ask(h, 'check all', DEV)).answers.join('\n');
    expect(said).toContain('could not check with Slack which stacks you may see');
    expect(shows(said, PROD) || shows(said, DEVSTACK)).toBe(false);
    expect(await h.running.context.store.listRuns({})).toEqual([]);
  });

  it('filters the App Home the same way', async () => {
    const h = await workspace();
    await h.click(ACTION_IDS.refreshHome, 'home', DEV, { inHome: true });
    await h.settle();
    const home = JSON.stringify(h.emulator.views().at(-1)?.view.blocks);
    expect(home).toContain(DEVSTACK);
    expect(home).not.toContain(PROD);
  });

  it('lets guests and everyone see when the config says so', async () => {
    const h = await workspace({ slack: { visibility: { stacks: 'everyone', guests: true } } } as ConfigPatch);
    const [guest] = (await ask(h, 'status', GUEST)).answers;
    expect(shows(guest, PROD) && shows(guest, DEVSTACK)).toBe(true);
    expect(guest).not.toContain('not shown');
  });

  it('shows nothing, and says why, when Slack cannot say who may see what', async () => {
    const h = await workspace();
    // users.info (is DEV a guest?) is the first of the lookups: Slack answers it 503.
    h.emulator.failNext(1, { status: 503 });
    const [dev] = (await ask(h, 'status', DEV)).answers;
    expect(dev).toContain('could not check with Slack which stacks you may see');
    expect(shows(dev, DEVSTACK) || shows(dev, PROD)).toBe(false);
  });
});

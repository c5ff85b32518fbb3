import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { usePostgres } from '../helpers/postgres.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, alerts, makeDrift } from './fixtures.js';

const postgres = usePostgres();
const startServe = useSlackServe();
const STACK = 'staging/network';

/**
 * Postgres stops while people click: each click is answered "try again" and changes nothing; once it is
 * back, the same click approves and applies, once.
 */
describe.skipIf(process.env.DRIFTGATE_TEST_POSTGRES_URL)('the store down under serve', () => {
  it('answers clicks and /drift with "try again", loses nothing, and goes on when Postgres is back', async () => {
    const h = await startServe({
      stacks: { [STACK]: NETWORK },
      stackSettings: { [STACK]: { environment: 'staging' } },
      config: { ...APPROVERS, store: { type: 'postgres', url: '${DATABASE_URL}' } },
      env: { DATABASE_URL: await postgres.createDatabase() },
    });
    await makeDrift(h, STACK);
    const outcome = await h.running.scheduler.request(STACK);
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    const runId = outcome.run.id;

    await postgres.outage!.begin();
    try {
      expect((await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'down' })).status).toBe(200);
      expect((await h.command('status', LEAD1, 'status-down')).status).toBe(200);
      for (
        let i = 0;
        i < 200 && h.emulator.responses('down').length + h.emulator.responses('status-down').length < 2;
        i++
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      for (const id of ['down', 'status-down']) {
        expect(JSON.stringify(h.emulator.responses(id))).toContain(
          'driftgate cannot reach its store right now, so nothing was done. Try again in a minute.',
        );
      }
    } finally {
      await postgres.outage!.end();
    }

    expect((await h.running.context.store.getRun(runId))?.state).toBe('drifted');
    expect(await h.running.context.store.listApprovals(runId)).toEqual([]);
    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'back' });
    await h.idle();
    expect((await h.running.context.store.getRun(runId))?.state).toBe('applied');
    const audit = (await h.running.context.store.listAudit({ runId })).map((a) => a.action);
    expect(audit.filter((a) => a === 'applied')).toHaveLength(1);
  });
});

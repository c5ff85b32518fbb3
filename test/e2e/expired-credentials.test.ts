import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { startLocalS3, type LocalS3, s3BackendHcl } from '../helpers/s3rver.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, actionIds, alerts, textOf, untilAlerts } from './fixtures.js';

const startServe = useSlackServe();
const STACK = 'staging/network';

let s3: LocalS3 | undefined;
afterEach(async () => {
  await s3?.close();
  s3 = undefined;
});

/** State in an S3 backend on the local server; the credentials come from the stack's `backendConfig`. */
const s3Backend = (endpoint: string) => s3BackendHcl(endpoint, { bucket: 'state', key: 'staging/network.tfstate' });

describe('an apply after a long wait', () => {
  it('ends the run expired when the backend credentials saved in the plan were rejected before anything changed, and posts a fresh plan', async () => {
    s3 = await startLocalS3(['state']);
    const session = s3.temporaryKey();
    const h = await startServe({
      stacks: { [STACK]: `${s3Backend(s3.endpoint)}${NETWORK}` },
      stackSettings: {
        [STACK]: {
          environment: 'staging',
          backendConfig: { access_key: session.accessKeyId, secret_key: session.secretAccessKey },
        },
      },
      config: APPROVERS,
      env: { AWS_EC2_METADATA_DISABLED: 'true' },
    });
    const planned = await h.running.scheduler.request(STACK);
    if (planned.status !== 'drifted') throw new Error(`expected changes, got ${JSON.stringify(planned)}`);
    await h.settle();
    const [first] = alerts(h, CHANNEL);
    const runId = planned.run.id;

    // The session the plan was made with expires while the plan waits for its approver.
    session.revoke();
    // A refreshed session is there by the time the fresh plan runs.
    h.running.context.deps.bus.on('plan_expired', () => session.restore());
    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'late' });
    await untilAlerts(h, 2);

    const store = h.running.context.store;
    const run = await store.getRun(runId);
    expect(run?.state).toBe('expired');
    expect(run?.error).toMatch(/credentials/);
    expect(run?.error).toContain('InvalidAccessKeyId');
    const audit = (await store.listAudit({ runId })).map((a) => a.action);
    expect(audit).toContain('apply_refused_credentials');
    expect(audit).not.toContain('apply_failed');
    expect((await store.getStack(STACK))?.blockedReason).toBeFalsy();
    const old = h.emulator.message(first!.channel, first!.ts);
    expect(textOf(old)).toContain('credentials');
    expect(actionIds(old)).toEqual([]);
    const fresh = alerts(h, CHANNEL)[1];
    expect(textOf(fresh)).toContain(`Drift detected in ${STACK}`);
    expect(actionIds(fresh)).toContain(ACTION_IDS.approve);
    expect(JSON.stringify(h.emulator.calls())).not.toContain(session.secretAccessKey);
    expect(h.logs.join('\n')).not.toContain(session.secretAccessKey);
  });
});

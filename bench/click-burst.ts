/**
 * The load generator of bench:slack, in a process of its own (as Slack is, to driftgate): reads
 * { url, secret, runId, users } as JSON from argv, fires one signed Approve click per user at once, and
 * prints each click's ack latency (on connections opened beforehand) in ms as JSON, sorted.
 */
import { ACTION_IDS } from '../src/slack/action-ids.js';
import { postSigned } from '../test/helpers/slack-signing.js';

interface BurstRequest {
  url: string;
  secret: string;
  runId: string;
  users: string[];
}

const request = JSON.parse(process.argv[2] ?? '{}') as BurstRequest;
const forms = request.users.map((user, i) => ({
  payload: JSON.stringify({
    type: 'block_actions',
    user: { id: user },
    trigger_id: `t-${i}`,
    container: { type: 'message', channel_id: 'C0ALERTS', message_ts: '1.000001' },
    actions: [{ type: 'button', action_id: ACTION_IDS.approve, value: request.runId }],
  }),
}));
// Slack keeps connections to an app open: open one per click first, so TCP setup is not in the figures.
await Promise.all(forms.map(async () => (await postSigned(request.url, request.secret, { payload: '{}' })).arrayBuffer()));
const latencies = await Promise.all(
  forms.map(async (form, i) => {
    const t0 = performance.now();
    const res = await postSigned(request.url, request.secret, form);
    const ms = performance.now() - t0;
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`click ${i} answered ${res.status}`);
    return ms;
  }),
);
process.stdout.write(JSON.stringify(latencies.sort((a, b) => a - b)));

/**
 * The load generator of bench:slack, in a process of its own (as Slack is, to driftgate): reads
 * { url, secret, runId, users } as JSON from argv, opens one keep-alive connection per user (Slack keeps
 * its connections to an app open), then writes one signed Approve click on each, all at once, and prints
 * each click's ack latency in ms as JSON, sorted. Raw sockets with the requests built beforehand keep the
 * client's own work out of the figures: the clock starts when a request is written and stops at the
 * first byte of its response.
 */
import { connect, type Socket } from 'node:net';
import { ACTION_IDS } from '../src/slack/action-ids.js';
import { slackSignature } from '../test/helpers/slack-signing.js';

interface BurstRequest {
  url: string;
  secret: string;
  runId: string;
  users: string[];
}

const request = JSON.parse(process.argv[2] ?? '{}') as BurstRequest;
const target = new URL(request.url);

function httpRequest(form: Record<string, string>): Buffer {
  const body = new URLSearchParams(form).toString();
  const headers = {
    host: target.host,
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'keep-alive',
    ...slackSignature(request.secret, body),
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return Buffer.from(`POST ${target.pathname} HTTP/1.1\r\n${head}\r\n\r\n${body}`);
}

/** Resolves at the first byte of the next response on the socket, then drains that response. */
function nextResponse(socket: Socket): Promise<{ at: number; status: number }> {
  return new Promise((resolve) => {
    socket.once('data', (chunk: Buffer) =>
      resolve({ at: performance.now(), status: Number(chunk.toString('latin1', 9, 12)) }),
    );
  });
}

const sockets = await Promise.all(
  request.users.map(
    () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(Number(target.port), target.hostname, () => resolve(socket));
        socket.once('error', reject);
      }),
  ),
);
// Warm-up: one request per connection, so the burst runs on open, used connections.
await Promise.all(
  sockets.map(async (socket) => {
    const answered = nextResponse(socket);
    socket.write(httpRequest({ payload: '{}' }));
    await answered;
    await new Promise((r) => setTimeout(r, 20));
  }),
);

const clicks = request.users.map((user, i) =>
  httpRequest({
    payload: JSON.stringify({
      type: 'block_actions',
      user: { id: user },
      team: { id: 'T111' },
      trigger_id: `t-${i}`,
      container: { type: 'message', channel_id: 'C0ALERTS', message_ts: '1.000001' },
      actions: [{ type: 'button', action_id: ACTION_IDS.approve, value: request.runId }],
    }),
  }),
);
const answers = sockets.map((socket) => nextResponse(socket));
const sentAt = sockets.map((socket, i) => {
  const at = performance.now();
  socket.write(clicks[i]!);
  return at;
});
const results = await Promise.all(answers);
for (const socket of sockets) socket.destroy();
const bad = results.find((r) => r.status !== 200);
if (bad) throw new Error(`a click was answered ${bad.status}`);
process.stdout.write(JSON.stringify(results.map((r, i) => r.at - sentAt[i]!).sort((a, b) => a - b)));

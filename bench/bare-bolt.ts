/**
 * The baseline of bench:slack, in a process of its own: a Bolt app with driftgate's receiver settings
 * whose Approve handler only acks. argv: { token, apiUrl, secret } as JSON; prints its port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { ACTION_IDS } from '../src/slack/action-ids.js';

const { token, apiUrl, secret } = JSON.parse(process.argv[2] ?? '{}') as {
  token: string;
  apiUrl: string;
  secret: string;
};
const receiver = new HTTPReceiver({
  signingSecret: secret,
  endpoints: '/slack/events',
  processBeforeResponse: false,
  logLevel: LogLevel.ERROR,
});
const app = new App({
  token,
  receiver,
  deferInitialization: true,
  clientOptions: { slackApiUrl: apiUrl },
  logLevel: LogLevel.ERROR,
});
app.action(ACTION_IDS.approve, async ({ ack }) => ack());
await app.init();
const server = createServer(receiver.requestListener);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

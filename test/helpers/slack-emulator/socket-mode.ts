/**
 * Slack's side of Socket Mode on a real loopback WebSocket: `apps.connections.open` (called with the app
 * token) hands out its URL; on connect it sends `hello`, and `send()` delivers an envelope as Slack does
 * and resolves with the app's acknowledgement of it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface SocketModeLink {
  readonly url: string;
  /** Resolves once an app is connected (after `hello`). */
  connected(): Promise<void>;
  /** Sends an envelope; resolves with what the app acked it with (`{ envelope_id, payload? }`). */
  send(
    type: 'slash_commands' | 'interactive' | 'events_api',
    payload: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startSocketModeLink(): Promise<SocketModeLink> {
  const server: Server = createServer();
  const wss = new WebSocketServer({ server });
  let socket: WebSocket | undefined;
  let onConnect: (() => void)[] = [];
  const acks = new Map<string, (ack: Record<string, unknown>) => void>();
  let seq = 0;

  wss.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const ack = JSON.parse(String(data)) as Record<string, unknown>;
      const envelopeId = typeof ack.envelope_id === 'string' ? ack.envelope_id : '';
      acks.get(envelopeId)?.(ack);
      acks.delete(envelopeId);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'emulator' },
        connection_info: { app_id: 'A111' },
      }),
    );
    for (const resolve of onConnect) resolve();
    onConnect = [];
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link`;

  return {
    url,
    connected: () => (socket ? Promise.resolve() : new Promise<void>((resolve) => onConnect.push(resolve))),
    send(type, payload) {
      if (!socket) return Promise.reject(new Error('no app connected'));
      const envelopeId = `env-${++seq}`;
      const acked = new Promise<Record<string, unknown>>((resolve) => acks.set(envelopeId, resolve));
      socket.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type !== 'events_api',
          retry_attempt: 0,
          retry_reason: '',
        }),
      );
      return acked;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

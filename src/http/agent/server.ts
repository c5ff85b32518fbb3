import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type HttpServer, listenOn } from '../server.js';

export interface AgentServerOptions {
  port: number;
  host?: string;
  /** PEM certificate chain and key: the agent API then speaks HTTPS only. */
  tls?: { cert: Buffer; key: Buffer };
  listener: RequestListener;
  /** Where the port was set, named when it cannot be listened on. */
  setting?: string;
}

/**
 * The agent API's own port: apart from Slack's and the health checks', so that a NetworkPolicy lets
 * workers reach it and nothing else of the control plane, and TLS can be set for it alone.
 */
export async function startAgentServer(options: AgentServerOptions): Promise<HttpServer & { tls: boolean }> {
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, options.listener)
    : createHttpServer(options.listener);
  // A long poll for a job holds its request open: longer than node's default header and keep-alive waits.
  server.requestTimeout = 5 * 60_000;
  server.keepAliveTimeout = 65_000;
  const listening = await listenOn(server, {
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    setting: options.setting ?? 'runners.agent.port',
  });
  return { ...listening, tls: Boolean(options.tls) };
}

import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ListenError } from '../../domain/errors.js';
import type { HttpServer } from '../server.js';

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
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ListenError(host, options.port, err.code ?? err.message, options.setting ?? 'runners.agent.port')),
    );
    server.listen(options.port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    tls: Boolean(options.tls),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

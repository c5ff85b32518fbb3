import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { ListenError } from '../domain/errors.js';
import { replyJson as reply } from './reply.js';

export interface HealthChecks {
  /** The process is alive and its event loop turns. */
  live(): boolean;
  /** Ready to do work (store open, scheduler started, Slack connected when configured); the reason when not. */
  ready(): { ok: true } | { ok: false; reason: string };
}

export interface HttpServerOptions {
  port: number;
  host?: string;
  /** Where the address was set (`--port`, `PORT`, `METRICS_ADDRESS`…), named when it cannot be listened on. */
  setting?: string;
  checks: HealthChecks;
  metrics?: Registry;
  /**
   * Paths handled by another listener (Bolt's receiver at /slack/events), and whether it can take them now.
   * Read at each request, so mounts may be added after the server listens.
   */
  mounts?: HttpMount[];
}

export interface HttpMount {
  path: string;
  listener: RequestListener;
  available(): boolean;
}

export interface HttpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * One server for everything driftgate listens to: `/healthz`, `/readyz`, Prometheus `/metrics`, and the
 * mounted listeners. It is up before Slack is reachable, so an orchestrator sees "not ready" rather than a
 * dead port while Bolt's start-up `auth.test` is retried.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const mount = options.mounts?.find((m) => m.path === path);
    if (mount) {
      if (!mount.available()) return reply(res, 503, { error: 'not ready' }, { 'retry-after': '5' });
      return mount.listener(req, res);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, { error: 'method not allowed' });
    if (path === '/healthz')
      return options.checks.live() ? reply(res, 200, { ok: true }) : reply(res, 503, { ok: false });
    if (path === '/readyz') {
      const ready = options.checks.ready();
      return reply(res, ready.ok ? 200 : 503, ready);
    }
    if (path === '/metrics' && options.metrics) {
      const body = await options.metrics.metrics();
      res.writeHead(200, { 'content-type': options.metrics.contentType });
      return res.end(body);
    }
    return reply(res, 404, { error: 'not found' });
  };
  const server: Server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
      else res.end();
    });
  });
  return listenOn(server, { port: options.port, host: options.host, setting: options.setting ?? 'port' });
}

/**
 * Listens on `host:port` (every interface by default); a port that cannot be listened on fails with a
 * ListenError naming `setting`. `close` ends open connections too (long polls, keep-alives).
 */
export async function listenOn(
  server: Server,
  options: { port: number; host?: string; setting: string },
): Promise<HttpServer> {
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ListenError(host, options.port, err.code ?? err.message, options.setting)),
    );
    server.listen(options.port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

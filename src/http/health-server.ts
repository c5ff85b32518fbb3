import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HealthChecks {
  /** The process is alive and its event loop turns. */
  live(): boolean;
  /** Ready to do work: store open, scheduler started; the reason when not. */
  ready(): { ok: true } | { ok: false; reason: string };
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** `/healthz` and `/readyz` for container orchestrators and the Dockerfile HEALTHCHECK. */
export async function startHealthServer(options: { port: number; host?: string; checks: HealthChecks }): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, { error: 'method not allowed' });
    if (path === '/healthz') return options.checks.live() ? reply(200, { ok: true }) : reply(503, { ok: false });
    if (path === '/readyz') {
      const ready = options.checks.ready();
      return reply(ready.ok ? 200 : 503, ready);
    }
    return reply(404, { error: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

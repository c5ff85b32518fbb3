import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';

/** A forward proxy on loopback, as a company's egress proxy: CONNECT tunnels and plain absolute-URI requests. */
export interface CountingProxy {
  url: string;
  /** What went through it: `CONNECT host:port`, or `GET http://…` for a plain request. */
  seen: string[];
  close(): Promise<void>;
}

export async function startCountingProxy(): Promise<CountingProxy> {
  const seen: string[] = [];
  const tunnels = new Set<{ destroy(): void }>();
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    tunnels.add(socket);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        for (const tunnel of tunnels) tunnel.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

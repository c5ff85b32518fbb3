/**
 * The control plane's agent API as workers reach it in Kubernetes: one address (a Service) in front of
 * every `serve` replica. Each connection goes to the next replica in turn; one that refuses (killed) is
 * skipped, and a replica that dies takes its connections with it, as a pod's end does.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface AgentService {
  url: string;
  /** A replica's agent port: connections go to it from now on. */
  add(port: number): void;
  remove(port: number): void;
  close(): Promise<void>;
}

export async function startAgentService(): Promise<AgentService> {
  const ports: number[] = [];
  const sockets = new Set<Socket>();
  let turn = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    const attempt = (left: number) => {
      if (left <= 0 || client.destroyed) return void client.destroy();
      const upstream = connect(ports[turn++ % ports.length]!, '127.0.0.1');
      track(upstream);
      upstream.once('error', () => attempt(left - 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.on('error', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(ports.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    add: (p) => void ports.push(p),
    remove: (p) => {
      const at = ports.indexOf(p);
      if (at >= 0) ports.splice(at, 1);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

import { createServer, type Server, Socket } from 'node:net';

/**
 * A TCP proxy on loopback that holds every chunk `delayMs` before passing it on, each way, so that
 * a client through it sees a round trip `2 × delayMs` longer (a Redis in another zone, behind TLS).
 * Order is kept per direction; each connection is bounded (at most `maxConnections` at once, the
 * rest refused). `close()` ends every connection and the server, and waits for them.
 */
export interface DelayingProxy {
  readonly port: number;
  close(): Promise<void>;
}

export async function startDelayingProxy(
  target: { host: string; port: number },
  delayMs: number,
  maxConnections = 16,
): Promise<DelayingProxy> {
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const server: Server = createServer((client) => {
    // Two sockets a connection: the client's and the one to the target.
    if (sockets.size >= maxConnections * 2) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    upstream.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!to.destroyed) to.write(chunk);
        }, delayMs);
        timers.add(timer);
      });
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    port: address.port,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

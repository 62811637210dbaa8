import { connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP relay to `target` (http://host:port) that passes on what the target sends at
 * most `bytesPerSecond` on each connection, and what the client sends at once: a slow link to,
 * say, the object store, so that a job reading a file runs for at least a known time however
 * fast the machine is.
 */
export interface ThrottledRelay {
  /** http://127.0.0.1:<port>, the target's address through the relay. */
  url: string;
  close(): Promise<void>;
}

export async function throttledRelay(target: string, bytesPerSecond: number): Promise<ThrottledRelay> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      upstream.pause();
      setTimeout(() => upstream.resume(), (1000 * chunk.length) / bytesPerSecond);
    });
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${own}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

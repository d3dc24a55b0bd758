import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test can pause: no byte passes either way while paused, the way
 * a hung database host or a partitioned network behaves (connections stay open; nothing answers). Used
 * instead of stopping the shared PostgreSQL server, which other tests use.
 */
export class PausableProxy {
  private readonly sockets = new Set<Socket>();
  private paused = false;
  private readonly server: Server;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
    server: Server,
  ) {
    this.server = server;
  }

  static async start(targetUrl: string): Promise<PausableProxy> {
    const url = new URL(targetUrl);
    const target = { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) };
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new PausableProxy(target, (server.address() as { port: number }).port, server);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  /** `databaseUrl` with its host and port replaced by this proxy's. */
  route(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  private accept(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      // Forwarded by hand, not with pipe(): pipe resumes a paused source on 'drain'.
      from.on('data', (chunk: Buffer) => to.write(chunk));
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => to.destroy());
      if (this.paused) from.pause();
    }
  }

  pause(): void {
    this.paused = true;
    for (const socket of this.sockets) socket.pause();
  }

  resume(): void {
    this.paused = false;
    for (const socket of this.sockets) socket.resume();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// A TCP proxy a test starts in front of a shared service (Redis, PostgreSQL)
// and can cut and restore, so that the service itself is never stopped.
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Forwards connections on a random local port to `host:port` until cut. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cutOff = false;

  private constructor(
    private readonly server: Server,
    /** The local port clients connect to. */
    readonly port: number,
  ) {}

  /** Starts a proxy to `host:port`. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    // The proxy exists once the server listens; connections before that are refused.
    const ref: { proxy?: TcpProxy } = {};
    const server = createServer((client) => {
      const { proxy } = ref;
      if (!proxy || proxy.cutOff) return void client.destroy();
      const upstream = connect(port, host);
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('proxy has no port');
    ref.proxy = new TcpProxy(server, address.port);
    return ref.proxy;
  }

  /** Drops every connection and stops listening (connections are refused), as if the service were down. */
  async cut(): Promise<void> {
    this.cutOff = true;
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listens again on the same port and lets connections through. */
  async restore(): Promise<void> {
    if (!this.cutOff) return;
    this.cutOff = false;
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  /** Stops the proxy. */
  async stop(): Promise<void> {
    if (!this.cutOff) await this.cut();
  }
}

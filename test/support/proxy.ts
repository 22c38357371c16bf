// A TCP proxy in front of a shared service (PostgreSQL, Redis) that a test
// can cut and restore, so that a server under test loses its dependency while
// the service itself, which others use, keeps running. Cutting resets every
// connection through the proxy and every new one until it is restored, as a
// restarting server or a broken network would; stalling holds back the
// service's answers on the open connections, as a hung server would.
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A proxy listening on 127.0.0.1 and forwarding to one address. */
export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private isCut = false;
  private stalled = false;
  /** Connections refused since the last cut. */
  refusedSinceCut = 0;

  private readonly server: Server;
  /** The port the proxy listens on. */
  port = 0;

  private constructor(targetHost: string, targetPort: number) {
    this.server = createServer((client) => this.accept(client, targetHost, targetPort));
  }

  /** Starts a proxy to `targetHost:targetPort`, listening on a free port. */
  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await new Promise<void>((done) => proxy.server.listen(0, '127.0.0.1', done));
    proxy.port = (proxy.server.address() as { port: number }).port;
    return proxy;
  }

  /** Connections currently forwarded. */
  get connections(): number {
    return this.pairs.size;
  }

  /** Whether the proxy is cut. */
  get cut(): boolean {
    return this.isCut;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Resets every forwarded connection, and refuses new ones until `restore`. */
  cutOff(): void {
    this.isCut = true;
    this.refusedSinceCut = 0;
    for (const [client, upstream] of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /**
   * Holds back what the service sends on every open connection, which stays
   * open, as a service that stopped answering would, until `restore`.
   */
  stall(): void {
    for (const [client, upstream] of this.pairs) {
      upstream.unpipe(client);
      upstream.pause();
    }
    this.stalled = true;
  }

  /** Forwards new connections again, and what a stall held back. */
  restore(): void {
    this.isCut = false;
    if (this.stalled) for (const [client, upstream] of this.pairs) upstream.pipe(client);
    this.stalled = false;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.cutOff();
    await new Promise((done) => this.server.close(done));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.isCut) {
      this.refusedSinceCut += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

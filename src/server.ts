// A running server: the HTTP listener over the app and its services, and the
// orderly stop that SIGTERM triggers.
import { createServer, type Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from './config';
import { createApp, type AppOptions } from './http/app';
import type { Logger } from './log';
import type { Services } from './services';
import { closeServices, createServices } from './startup';

/** How long, when stopping, an idle keep-alive connection may still bring a request. */
const IDLE_GRACE_MS = 1000;

/** A server listening for requests. */
export interface RunningServer {
  services: Services;
  http: Server;
  /** The base address, e.g. http://127.0.0.1:9991. */
  url: string;
  /**
   * Stops accepting connections, answers waiting long-polls (and any poll
   * arriving meanwhile) at once, lets requests in flight finish (closing
   * stragglers after `graceMs`), then closes the database.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts the server for `src/main.ts` and each process of `npm run cluster`:
 * logs where it listens (and, when `announce`, how to create the first
 * organization), and stops it in order on SIGTERM or SIGINT, then exits.
 */
export async function serve(config: Config, log: Logger, announce = true): Promise<RunningServer> {
  const server = await startServer(config, log, { processMetrics: true });
  log.info('listening', {
    url: `${server.url}/api/v1`,
    database: server.services.db.provider,
    docs: `${server.url}/api/docs`,
    health: `${server.url}/health`,
    ready: `${server.url}/ready`,
    metrics: `${server.url}/metrics`,
  });
  if (announce && (await server.services.db.read((db) => db.realm.count())) === 0) {
    log.info(
      'no organization yet; create one with: npm run manage -- create-realm --name "My team" --owner-email you@example.com --owner-password "a long password"',
    );
  }
  const stop = (signal: string) => {
    log.info('shutting down', { signal });
    void server.stop().then(() => {
      log.info('stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return server;
}

/**
 * Answers a request Node's HTTP parser refused before the app saw it (a URL
 * or headers over 16 KiB, malformed HTTP) in the error envelope, as JSON.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const [status, reason, msg] = tooLarge
    ? [
        431,
        'Request Header Fields Too Large',
        'The URL and headers are larger than the limit of 16 KiB',
      ]
    : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ result: 'error', msg, code: 'BAD_REQUEST' });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Migrates, builds the app and listens on the configured host and port. */
export async function startServer(
  config: Config,
  log: Logger,
  options: AppOptions = {},
): Promise<RunningServer> {
  const services = await createServices(config, log);
  const { handle } = await createApp(services, options);
  let draining = false;
  const http = createServer((req, res) => {
    // While stopping, every answer closes its connection, so that the
    // client's next request opens one to another process.
    if (draining) res.setHeader('Connection', 'close');
    return handle(req, res);
  });
  http.keepAliveTimeout = 65_000;
  http.requestTimeout = 0; // long-polls wait up to the heartbeat interval
  http.on('clientError', answerClientError);
  await new Promise<void>((resolve) => http.listen(config.port, config.host, resolve));
  const { port } = http.address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000) =>
    (stopping ??= new Promise<void>((resolve) => {
      draining = true;
      // Stop accepting connections. (http.close would also drop idle
      // keep-alive connections at once, racing a request a client may be
      // sending on one: it would be lost. net's close leaves them open.)
      const closed = new Promise<void>((done) =>
        Reflect.apply(NetServer.prototype.close, http, [() => done()]),
      );
      services.queues.drain();
      // A connection still idle after a moment is closed; meanwhile a request
      // on it is served, its answer closing the connection.
      let sweep: NodeJS.Timeout | undefined;
      const idleGrace = setTimeout(
        () => {
          http.closeIdleConnections();
          sweep = setInterval(() => http.closeIdleConnections(), 50);
        },
        Math.min(IDLE_GRACE_MS, graceMs),
      );
      const force = setTimeout(() => http.closeAllConnections(), graceMs);
      force.unref();
      closed
        // Now http's own close has nothing left to drop; it stops the timer
        // that checks connections for timeouts, which would otherwise keep
        // the server and all it holds in memory.
        .then(() => void http.close())
        .then(() => closeServices(services))
        .then(() => {
          clearTimeout(idleGrace);
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
    }));
  return { services, http, url: `http://${config.host}:${port}`, stop };
}

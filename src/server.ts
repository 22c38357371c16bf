// A running server: the HTTP listener over the app and its services, and the
// orderly stop that SIGTERM triggers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config';
import { createApp, type AppOptions } from './http/app';
import type { Logger } from './log';
import type { Services } from './services';
import { closeServices, createServices } from './startup';

/** A server listening for requests. */
export interface RunningServer {
  services: Services;
  http: Server;
  /** The base address, e.g. http://127.0.0.1:9991. */
  url: string;
  /**
   * Stops accepting connections, answers waiting long-polls, lets requests in
   * flight finish (closing stragglers after `graceMs`), then closes the database.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Migrates, builds the app and listens on the configured host and port. */
export async function startServer(
  config: Config,
  log: Logger,
  options: AppOptions = {},
): Promise<RunningServer> {
  const services = await createServices(config, log);
  const app = await createApp(services, options);
  const http = createServer(app.callback());
  http.keepAliveTimeout = 65_000;
  http.requestTimeout = 0; // long-polls wait up to the heartbeat interval
  await new Promise<void>((resolve) => http.listen(config.port, config.host, resolve));
  const { port } = http.address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000) =>
    (stopping ??= new Promise<void>((resolve) => {
      const closed = new Promise<void>((done) => http.close(() => done()));
      services.queues.wakeAll();
      // Keep-alive connections close as soon as their last answer is sent.
      http.closeIdleConnections();
      const sweep = setInterval(() => http.closeIdleConnections(), 50);
      const force = setTimeout(() => http.closeAllConnections(), graceMs);
      force.unref();
      closed
        .then(() => closeServices(services))
        .then(() => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
    }));
  return { services, http, url: `http://${config.host}:${port}`, stop };
}

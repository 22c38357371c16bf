// Starts the server: migrates the database, serves the API on PORT, and on
// SIGTERM or SIGINT finishes the requests in flight, answers waiting
// long-polls and closes the database.
import { createServer } from 'node:http';
import { ConfigError, loadConfig } from './config';
import { createApp } from './http/app';
import { createLogger } from './log';
import { closeServices, createServices } from './services';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const services = await createServices(config, log);
  const app = await createApp(services);
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0; // long-polls wait up to the heartbeat interval
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  log.info('listening', { url: `http://${config.host}:${config.port}/api/v1`, database: services.db.provider });
  const realms = await services.db.read((db) => db.realm.count());
  if (realms === 0) {
    log.info('no organization yet; create one with: npm run manage -- create-realm --name "My team" --owner-email you@example.com --owner-password "a long password"');
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    server.close(async () => {
      await closeServices(services);
      log.info('stopped');
      process.exit(0);
    });
    services.queues.wakeAll();
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'failed to start', error: String(error?.message ?? error) })}\n`);
  process.exit(1);
});

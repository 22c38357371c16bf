// Starts the server: migrates the database, serves the API on PORT, and on
// SIGTERM or SIGINT finishes the requests in flight, answers waiting
// long-polls and closes the database.
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger } from './log';
import { startServer } from './server';

async function main(): Promise<void> {
  let config: Config;
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
  const server = await startServer(config, log, { processMetrics: true });
  log.info('listening', {
    url: `${server.url}/api/v1`,
    database: server.services.db.provider,
    health: `${server.url}/health`,
    ready: `${server.url}/ready`,
    metrics: `${server.url}/metrics`,
  });
  const realms = await server.services.db.read((db) => db.realm.count());
  if (realms === 0) {
    log.info(
      'no organization yet; create one with: npm run manage -- create-realm --name "My team" --owner-email you@example.com --owner-password "a long password"',
    );
  }
  const stop = (signal: string) => {
    log.info('shutting down', { signal });
    server.stop().then(() => {
      log.info('stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'failed to start', error: String(error?.message ?? error) })}\n`,
  );
  process.exit(1);
});

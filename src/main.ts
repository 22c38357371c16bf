// Starts the server: migrates the database, serves the API on PORT, and on
// SIGTERM or SIGINT finishes the requests in flight, answers waiting
// long-polls and closes the database.
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger } from './log';
import { serve } from './server';

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
  await serve(config, createLogger(config.logLevel));
}

main().catch((error) => {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'failed to start', error: String(error?.message ?? error) })}\n`,
  );
  process.exit(1);
});

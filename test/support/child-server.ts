// A server in a process of its own, started by a test (see cluster.ts) with
// `node -r test/support/ts-register.js`: configured from the environment as
// the real server is, it prints one JSON line with its address once it
// listens, and stops in order on SIGTERM, as src/main.ts does.
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { startServer } from '../../src/server';

async function main(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config, createLogger(config.logLevel), { lazy: true });
  process.stdout.write(`${JSON.stringify({ listening: server.url, pid: process.pid })}\n`);
  process.once('SIGTERM', () => {
    void server.stop().then(() => process.exit(0));
  });
}

main().catch((error) => {
  process.stderr.write(`child server failed to start: ${String(error?.stack ?? error)}\n`);
  process.exit(1);
});

// A server in a process of its own, started by a test (see cluster.ts) with
// `node -r test/support/ts-register.js`: configured from the environment as
// the real server is, it prints one JSON line with its address (and its
// process name in Redis) once it listens, and stops in order on SIGTERM, as
// src/main.ts does.
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { startServer } from '../../src/server';

async function main(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config, createLogger(config.logLevel), { lazy: true });
  // With CHAT_TEST_BUSY_MS, SIGUSR2 keeps the main thread busy that long, as a
  // burst of work would, saying when it starts and ends (stdout to a pipe is
  // written at once).
  const busyMs = Number(process.env.CHAT_TEST_BUSY_MS || 0);
  if (busyMs > 0) {
    process.on('SIGUSR2', () => {
      process.stdout.write(`${JSON.stringify({ busy: 'start' })}\n`);
      const until = Date.now() + busyMs;
      while (Date.now() < until) {
        // busy
      }
      process.stdout.write(`${JSON.stringify({ busy: 'end' })}\n`);
    });
  }
  const redisProcess = server.services.redis?.processId;
  process.stdout.write(
    `${JSON.stringify({ listening: server.url, pid: process.pid, process: redisProcess })}\n`,
  );
  process.once('SIGTERM', () => {
    void server.stop().then(() => process.exit(0));
  });
}

main().catch((error) => {
  process.stderr.write(`child server failed to start: ${String(error?.stack ?? error)}\n`);
  process.exit(1);
});

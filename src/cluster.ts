// `npm run cluster`: several server processes on one machine behind one port,
// with Node's cluster module. The primary process checks that the
// configuration can be shared (PostgreSQL and Redis), applies the migrations
// once, forks the workers, replaces a worker that dies, and on SIGTERM or
// SIGINT stops every worker in order (each answers its waiting long-polls and
// finishes its requests) before exiting. Each worker is the ordinary server.
//
// The workers accept connections themselves, on the listening socket they
// share (SCHED_NONE), rather than from the primary (Node's round robin on
// Linux): the primary hands a connection it accepted to a worker and keeps it
// open until that worker acknowledges it, and a worker that dies in between
// never does, so that the connection stays open with nobody to answer its
// request. With a shared socket, a connection a worker has not accepted waits
// for another, and one it had accepted is closed with it.
//   npm run cluster [-- --workers N]     (or CLUSTER_WORKERS=N; default: one per core)
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig, type Config } from './config';
import { migrate } from './db/migrate';
import { createLogger, type Logger } from './log';
import { serve } from './server';

/** Why `config` cannot run as a cluster, or undefined when it can. */
export function clusterRefusal(config: Config): string | undefined {
  if (!/^postgres(ql)?:\/\//.test(config.databaseUrl))
    return 'npm run cluster needs DATABASE_URL=postgresql://...: the processes share one database, and a SQLite file belongs to one process';
  if (!config.redisUrl)
    return 'npm run cluster needs REDIS_URL=redis://...: the processes share event queues, rate limits and cache drops through Redis';
  return undefined;
}

/** The number of workers: `--workers N` (or a bare N) on the command line, else CLUSTER_WORKERS, else one per core. */
export function workerCount(args: string[], config: Config): number {
  const flag = args.indexOf('--workers');
  const raw = flag >= 0 ? args[flag + 1] : args.find((arg) => /^\d+$/.test(arg));
  if (raw !== undefined) {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1)
      throw new ConfigError(`--workers must be a whole number of at least 1, not "${raw}"`);
    return n;
  }
  return config.clusterWorkers || availableParallelism();
}

async function primary(config: Config, log: Logger, count: number): Promise<void> {
  const applied = await migrate(config.databaseUrl);
  if (applied.length > 0) log.info('database migrated', { migrations: applied });
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: __filename, args: [] });
  let stopping = false;
  const listening = new Set<number>();
  let forked = 0;
  const fork = (): Worker => {
    // The first worker alone says how to create the first organization.
    const worker = cluster.fork({ CLUSTER_WORKER_ANNOUNCE: forked++ === 0 ? '1' : '0' });
    worker.once('listening', (address) => {
      listening.add(worker.id);
      if (listening.size === count)
        log.info('cluster listening', {
          url: `http://${config.host}:${address.port}/api/v1`,
          workers: Object.values(cluster.workers ?? {}).map((w) => w?.process.pid),
        });
    });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    const started = listening.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info('cluster stopped');
        process.exit();
      }
      return;
    }
    if (!started) {
      // One that could not start would fail again: stop everything instead.
      log.error('worker failed to start; stopping the cluster', { code, signal });
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
      return;
    }
    // A worker that dies on its own is replaced; its long-polls re-poll elsewhere.
    log.warn('worker exited; starting another', { pid: worker.process.pid, code, signal });
    setTimeout(() => {
      if (!stopping) fork();
    }, 1000);
  });
  for (let i = 0; i < count; i++) fork();
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('cluster shutting down', { signal });
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker?.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(): Promise<void> {
  let config: Config;
  let count: number;
  try {
    config = loadConfig();
    count = workerCount(process.argv.slice(2), config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // Every line names its process, so that a request can be traced to its worker.
  const log = createLogger(config.logLevel, undefined, { pid: process.pid });
  if (cluster.isPrimary) {
    const refusal = clusterRefusal(config);
    if (refusal) {
      process.stderr.write(`${refusal}\n`);
      process.exit(2);
    }
    await primary(config, log, count);
  } else {
    await serve(config, log, process.env.CLUSTER_WORKER_ANNOUNCE === '1');
  }
}

main().catch((error) => {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'failed to start', error: String(error?.message ?? error) })}\n`,
  );
  process.exit(1);
});

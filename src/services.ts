// The long-lived objects a running server shares: configuration, logger,
// database, authentication, event queues and the bus actions publish on.
import type { Config } from './config';
import { openDatabase, type Database } from './db/client';
import { migrate } from './db/migrate';
import { LocalEventBus, type EventBus } from './events/bus';
import { EventQueues } from './events/queues';
import { installMessageEventHooks } from './lib/narrow-events';
import { Authenticator } from './http/auth';
import { RateLimiter } from './http/rate-limit';
import { createLogger, type Logger } from './log';
import { doDeliverScheduledMessages } from './actions/scheduled-messages';
import { startScheduler, type Scheduler } from './lib/scheduler';

/** Everything handlers and actions need, created once per process. */
export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  auth: Authenticator;
  queues: EventQueues;
  bus: EventBus;
  limits: { user: RateLimiter; ip: RateLimiter; login: RateLimiter };
  /** Delivers due scheduled messages every few seconds. */
  scheduler: Scheduler;
}

/** Migrates the database and creates the services for `config`. */
export async function createServices(config: Config, log: Logger = createLogger(config.logLevel)): Promise<Services> {
  const applied = await migrate(config.databaseUrl);
  if (applied.length > 0) log.info('database migrated', { migrations: applied });
  const db = await openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  const queues = new EventQueues({
    heartbeatMs: config.heartbeatSeconds * 1000,
    idleTimeoutMs: config.queueTimeoutSeconds * 1000,
    maxEvents: config.queueMaxEvents,
  });
  installMessageEventHooks(queues);
  const services: Services = {
    config,
    log,
    db,
    auth: new Authenticator(db),
    queues,
    bus: new LocalEventBus(queues),
    limits: {
      user: new RateLimiter(config.rateLimitUserRequests, config.rateLimitWindowSeconds),
      ip: new RateLimiter(config.rateLimitIpRequests, config.rateLimitWindowSeconds),
      login: new RateLimiter(config.rateLimitAuthAttempts, 1800),
    },
    scheduler: { stop: async () => {} },
  };
  services.scheduler = startScheduler(config.scheduledMessagesIntervalSeconds, () => doDeliverScheduledMessages(services, new Date()), log);
  return services;
}

/** Answers waiting polls and closes the database. */
export async function closeServices(services: Services): Promise<void> {
  services.queues.close();
  await services.scheduler.stop();
  await services.db.close();
}

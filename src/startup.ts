// Start-up: migrates the database, builds the long-lived services, wires the
// event queues to the messages area and starts the delivery of scheduled
// messages; and closes all of it again. The server and the admin commands
// start here, above every other layer, so that no module below imports upwards.
import { doDeliverScheduledMessages } from './actions/scheduled-messages';
import type { Config } from './config';
import { openDatabase } from './db/client';
import { migrate } from './db/migrate';
import { QueueEventBus } from './events/bus';
import { MemoryQueueStore } from './events/memory-queues';
import type { EventQueueStore, QueueLimits } from './events/queues';
import { RedisLink } from './events/redis';
import { noBroadcast, RedisBroadcast } from './events/broadcast';
import { RedisQueueStore } from './events/redis-queues';
import { Authenticator, CREDENTIALS_TOPIC } from './lib/users/credentials';
import { RateLimiter } from './http/rate-limit';
import { messageEventHooks } from './lib/narrow/narrow-events';
import { startScheduler } from './lib/messages/scheduler';
import { createLogger, type Logger } from './log';
import type { Services } from './services';

/** Migrates the database and creates the services for `config`. */
export async function createServices(
  config: Config,
  log: Logger = createLogger(config.logLevel),
): Promise<Services> {
  const applied = await migrate(config.databaseUrl);
  if (applied.length > 0) log.info('database migrated', { migrations: applied });
  const db = await openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  const limits: QueueLimits = {
    heartbeatMs: config.heartbeatSeconds * 1000,
    idleTimeoutMs: config.queueTimeoutSeconds * 1000,
    maxEvents: config.queueMaxEvents,
  };
  const redis = config.redisUrl
    ? await RedisLink.connect(config.redisUrl, config.redisKeyPrefix, (error) =>
        log.warn('redis connection', { error: error.message }),
      )
    : null;
  const queues: EventQueueStore = redis
    ? await RedisQueueStore.open(redis, limits, messageEventHooks, (error) =>
        log.error('event queue read failed', { error: String(error) }),
      )
    : new MemoryQueueStore(limits, messageEventHooks);
  const bus = new QueueEventBus(queues, (error) =>
    log.error('event publication failed', { error: String(error) }),
  );
  db.settle = () => bus.settled();
  const broadcast = redis
    ? new RedisBroadcast(redis, (error) => log.warn('broadcast failed', { error: String(error) }))
    : noBroadcast;
  const auth = new Authenticator(db, undefined, broadcast);
  await broadcast.listen(CREDENTIALS_TOPIC, (message) => auth.receive(message));
  const services: Services = {
    config,
    log,
    db,
    redis,
    auth,
    queues,
    bus,
    limits: {
      user: new RateLimiter(
        config.rateLimitUserRequests,
        config.rateLimitWindowSeconds,
        'user',
        redis,
      ),
      ip: new RateLimiter(config.rateLimitIpRequests, config.rateLimitWindowSeconds, 'ip', redis),
      login: new RateLimiter(config.rateLimitAuthAttempts, 1800, 'login', redis),
    },
    scheduler: { stop: async () => {} },
  };
  services.scheduler = startScheduler(
    config.scheduledMessagesIntervalSeconds,
    () => doDeliverScheduledMessages(services, new Date()),
    log,
  );
  return services;
}

/** Answers waiting polls, stops the scheduler and closes the database. */
export async function closeServices(services: Services): Promise<void> {
  await services.scheduler.stop();
  await services.queues.close();
  await services.redis?.close();
  await services.db.close();
}

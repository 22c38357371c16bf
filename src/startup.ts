// Start-up: migrates the database, builds the long-lived services, wires the
// event queues to the messages area and starts the periodic task (scheduled
// messages, notification and digest emails, deleting organizations); and
// closes all of it again. The server and the admin commands
// start here, above every other layer, so that no module below imports upwards.
import { doDeliverScheduledMessages } from './actions/messages/scheduled-messages';
import type { Config } from './config';
import { openDatabase, type Database } from './db/client';
import { migrate } from './db/migrate';
import { QueueEventBus } from './events/bus';
import { MemoryQueueStore } from './events/memory-queues';
import type { EventQueueStore, QueueLimits } from './events/queues';
import type { RedisLink } from './events/redis';
import { noBroadcast, RedisBroadcast } from './events/broadcast';
import type { RedisQueueStore } from './events/redis-queues';
import { Authenticator, CREDENTIALS_TOPIC } from './lib/users/credentials';
import { PresenceCache } from './lib/presence-cache';
import { RateLimiter } from './http/rate-limit';
import { messageEventHooks } from './lib/narrow/narrow-events';
import { doDeleteDueRealms } from './actions/realm/realm-deactivation';
import {
  doRecordEmailNotifications,
  doSendDueEmailNotifications,
} from './actions/notifications/email-notifications';
import { doAnswerAsWelcomeBot, doCallOutgoingWebhooks } from './actions/messages/messages';
import { Followers } from './events/followers';
import type { SentMessage } from './lib/messages/sent';
import { doSendDigestEmails } from './actions/notifications/digest-emails';
import { startScheduler } from './lib/messages/scheduler';
import type { FileStore } from './lib/uploads/file-store';
import { LocalFileStore } from './lib/uploads/local-store';
import type { Mailer } from './lib/mail/mailer';
import { OutboxMailer } from './actions/mail/outbox';
import { createLogger, type Logger } from './log';
import type { Services } from './services';

/**
 * The Redis link and the event queues in it. Their modules (and ioredis) are
 * loaded only here: a process without REDIS_URL never needs them.
 */
async function openRedis(
  url: string,
  keyPrefix: string,
  limits: QueueLimits,
  log: Logger,
): Promise<{ redis: RedisLink; redisQueues: RedisQueueStore }> {
  const [{ RedisLink }, { RedisQueueStore }] = await Promise.all([
    import('./events/redis'),
    import('./events/redis-queues'),
  ]);
  const redis = await RedisLink.connect(url, keyPrefix, (error) =>
    log.warn('redis connection', { error: error.message }),
  );
  const redisQueues = await RedisQueueStore.open(
    redis,
    limits,
    messageEventHooks,
    (error) => log.error('event queue read failed', { error: String(error) }),
    (what, fields) => log.warn(what, fields),
  );
  return { redis, redisQueues };
}

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
    warn: (what, fields) => log.warn(what, fields),
  });
  const limits: QueueLimits = {
    heartbeatMs: config.heartbeatSeconds * 1000,
    idleTimeoutMs: config.queueTimeoutSeconds * 1000,
    maxEvents: config.queueMaxEvents,
    publishRetryMs: config.publishRetrySeconds * 1000,
    livenessMs: config.processLivenessSeconds * 1000,
    hangMs: config.processHangSeconds * 1000,
  };
  const { redis, redisQueues } = config.redisUrl
    ? await openRedis(config.redisUrl, config.redisKeyPrefix, limits, log)
    : { redis: null, redisQueues: null };
  const queues: EventQueueStore = redisQueues ?? new MemoryQueueStore(limits, messageEventHooks);
  const bus = new QueueEventBus(queues, (error) =>
    log.error('event publication failed', { error: String(error) }),
  );
  db.settle = () => bus.settled();
  db.commitGuard = redisQueues?.marks ?? null;
  // A test-only fault (see Database.killAfterCommit), read from the environment alone.
  db.killAfterCommit = process.env.CHAT_FAULT_KILL_AFTER_COMMIT === '1';
  const broadcast = redis
    ? new RedisBroadcast(redis, (error) => log.warn('broadcast failed', { error: String(error) }))
    : noBroadcast;
  const presence = new PresenceCache();
  const auth = new Authenticator(db, undefined, broadcast, presence);
  await broadcast.listen(CREDENTIALS_TOPIC, (message) => auth.receive(message));
  const services: Services = {
    config,
    log,
    db,
    redis,
    auth,
    presence,
    files: await openFileStore(config),
    mail: await openMailer(config, db, log),
    queues,
    bus,
    messageSent: new Followers<SentMessage>((name, error) =>
      log.warn('a follower of a sent message failed', { follower: name, error: String(error) }),
    ),
    limits: {
      user: new RateLimiter(
        config.rateLimitUserRequests,
        config.rateLimitWindowSeconds,
        'user',
        redis,
      ),
      ip: new RateLimiter(config.rateLimitIpRequests, config.rateLimitWindowSeconds, 'ip', redis),
      apiKeyFailures: new RateLimiter(
        config.rateLimitIpRequests,
        config.rateLimitWindowSeconds,
        'apikey',
        redis,
      ),
    },
    scheduler: { stop: async () => {}, runs: 0 },
  };
  followSentMessages(services);
  services.scheduler = startScheduler(
    config.scheduledMessagesIntervalSeconds,
    async () => {
      await doDeliverScheduledMessages(services, new Date());
      await doDeleteDueRealms(services, new Date());
      await doSendDueEmailNotifications(services, new Date());
      await doSendDigestEmails(services, new Date());
    },
    log,
  );
  return services;
}

// The AWS SDK and nodemailer are loaded only when configured: together they
// are a good part of the modules a start loads.

/** The object store when S3_BUCKET is set, otherwise the upload folder. */
export async function openFileStore(config: Config): Promise<FileStore> {
  if (!config.s3) return new LocalFileStore(config.uploadsDir);
  const { S3FileStore } = await import('./lib/uploads/s3-store');
  return new S3FileStore(config.s3);
}

/** The SMTP server when SMTP_URL is set, otherwise the database's outbox. */
export async function openMailer(config: Config, db: Database, log: Logger): Promise<Mailer> {
  if (!config.smtpUrl) return new OutboxMailer(db, config.emailFrom, log);
  const { SmtpMailer } = await import('./lib/mail/smtp-mailer');
  return new SmtpMailer(config.smtpUrl, config.emailFrom);
}

/**
 * Stops the scheduler, lets the followers of sent messages finish and the
 * events published so far reach their queues, answers waiting polls and
 * closes the database: nothing that runs after a write's commit is left to
 * find the database closed.
 */
export async function closeServices(services: Services): Promise<void> {
  await services.scheduler.stop();
  await services.messageSent.settled();
  await services.bus.settled();
  await services.queues.close();
  await services.redis?.close();
  await services.files.close();
  await services.mail.close();
  await services.db.close();
}

/**
 * Subscribes what follows from a committed message, each on its own: Welcome
 * Bot's answer, outgoing webhooks and the notification emails to come.
 */
function followSentMessages(services: Services): void {
  const sent = services.messageSent;
  sent.subscribe('welcome bot', (message) => doAnswerAsWelcomeBot(services, message));
  sent.subscribe('outgoing webhooks', (message) => doCallOutgoingWebhooks(services, message));
  sent.subscribe('notification emails', (message) =>
    doRecordEmailNotifications(services, { ...message, message: message.message }),
  );
}

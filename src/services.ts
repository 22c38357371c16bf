// The long-lived objects a running server shares: configuration, logger,
// database, authentication, event queues and the bus actions publish on. They
// are built and closed by the start-up module (src/startup.ts).
import type { Config } from './config';
import type { Database } from './db/client';
import type { EventBus } from './events/bus';
import type { Followers } from './events/followers';
import type { EventQueueStore } from './events/queues';
import type { RedisLink } from './events/redis';
import type { Authenticator } from './lib/users/credentials';
import type { PresenceCache } from './lib/presence-cache';
import type { FileStore } from './lib/uploads/file-store';
import type { Mailer } from './lib/mail/mailer';
import type { RateLimiter } from './http/rate-limit';
import type { Scheduler } from './lib/messages/scheduler';
import type { SentMessage } from './lib/messages/sent';
import type { Logger } from './log';

/** Everything handlers and actions need, created once per process. */
export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  /** The Redis shared by the server processes, when REDIS_URL is set. */
  redis: RedisLink | null;
  auth: Authenticator;
  /** Each organization's presence rows, kept up to date before each use. */
  presence: PresenceCache;
  /** Where uploaded files and custom emoji images are kept. */
  files: FileStore;
  /** Outgoing mail: the SMTP server of SMTP_URL, or the database's outbox. */
  mail: Mailer;
  queues: EventQueueStore;
  bus: EventBus;
  /** Subscribers to committed messages: what follows from a message being sent. */
  messageSent: Followers<SentMessage>;
  limits: { user: RateLimiter; ip: RateLimiter; apiKeyFailures: RateLimiter };
  /** Delivers due scheduled messages every few seconds. */
  scheduler: Scheduler;
}

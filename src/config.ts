// Configuration, read from the environment once at start, with defaults that
// work on a laptop. Every variable is listed in README.md.
import { resolve } from 'node:path';
import { projectRoot } from './paths';

/** The server's settings. */
export interface Config {
  /** Port the HTTP server listens on. */
  port: number;
  /** Address the HTTP server binds to. */
  host: string;
  /** `file:...` for SQLite or `postgresql://...` for PostgreSQL. */
  databaseUrl: string;
  /** Largest number of PostgreSQL connections in the pool. */
  databasePoolSize: number;
  /** Milliseconds to wait for a PostgreSQL connection before failing. */
  databaseConnectTimeoutMs: number;
  /** The address users reach the server at, without a trailing slash. */
  externalUrl: string;
  /** Redis shared by the server processes (event queues, rate limits, cache invalidation); empty for one process. */
  redisUrl: string;
  /** Put before every Redis key and channel name, so that deployments sharing a Redis never meet. */
  redisKeyPrefix: string;
  /** Seconds a long-poll waits before answering with a heartbeat. */
  heartbeatSeconds: number;
  /** Seconds an event queue may go unpolled before it is removed. */
  queueTimeoutSeconds: number;
  /** Most events a queue holds; older ones are dropped past it. */
  queueMaxEvents: number;
  /** Authenticated requests allowed per user per window. */
  rateLimitUserRequests: number;
  /** Unauthenticated requests allowed per address per window. */
  rateLimitIpRequests: number;
  /** Length of a rate-limit window, in seconds. */
  rateLimitWindowSeconds: number;
  /** Failed password logins allowed per username per 30 minutes. */
  rateLimitAuthAttempts: number;
  /** Seconds between two runs of scheduled-message delivery; 0 turns delivery off. */
  scheduledMessagesIntervalSeconds: number;
  /** Folder uploaded files are stored in. */
  uploadsDir: string;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /**
   * The form of channels' incoming email addresses, `%s` standing for the
   * channel's part (`%s@streams.example.com`); empty when the server has no
   * email gateway, and channels then have no address.
   */
  emailGatewayPattern: string;
  /** Minimum level of log lines written: debug, info, warn, error or silent. */
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer of at least ${min}, not "${raw}"`);
  return value;
}

function number(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigError(`${name} must be a positive number, not "${raw}"`);
  return value;
}

/** The SQLite file used when DATABASE_URL is not set. */
export const defaultDatabaseUrl = `file:${resolve(projectRoot, 'data', 'chat.db')}`;

/** Reads and checks the configuration; throws with the variable's name on bad input. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 9991);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || defaultDatabaseUrl;
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(
      'DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)',
    );
  }
  const redisUrl = env.REDIS_URL || '';
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL must be one of debug, info, warn, error, silent');
  }
  const emailGatewayPattern = env.EMAIL_GATEWAY_PATTERN || '';
  if (emailGatewayPattern !== '' && emailGatewayPattern.split('%s').length !== 2) {
    throw new ConfigError(
      'EMAIL_GATEWAY_PATTERN must hold %s exactly once, as in %s@mail.example.com',
    );
  }
  return {
    port,
    host,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 1),
    externalUrl: (env.EXTERNAL_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'chat:',
    heartbeatSeconds: number(env, 'EVENT_HEARTBEAT_SECONDS', 50),
    queueTimeoutSeconds: number(env, 'EVENT_QUEUE_TIMEOUT_SECONDS', 600),
    queueMaxEvents: integer(env, 'EVENT_QUEUE_MAX_EVENTS', 10000, 1),
    rateLimitUserRequests: integer(env, 'RATE_LIMIT_USER_REQUESTS', 200, 1),
    rateLimitIpRequests: integer(env, 'RATE_LIMIT_IP_REQUESTS', 100, 1),
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1),
    rateLimitAuthAttempts: integer(env, 'RATE_LIMIT_AUTH_ATTEMPTS', 5, 1),
    scheduledMessagesIntervalSeconds: integer(env, 'SCHEDULED_MESSAGES_INTERVAL_SECONDS', 5),
    uploadsDir: resolve(env.UPLOADS_DIR || resolve(projectRoot, 'data', 'uploads')),
    trustProxy: env.TRUST_PROXY === '1',
    emailGatewayPattern,
    logLevel,
  };
}

export { ConfigError };

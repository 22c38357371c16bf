// Configuration, read from the environment once at start, with defaults that
// work on a laptop. Every variable is listed in README.md.
import { resolve } from 'node:path';
import { projectRoot } from './paths';

/** Where the objects are and how to reach them. */
export interface S3Settings {
  bucket: string;
  /** Begins every object key ("" for none); ends with "/" when not empty. */
  keyPrefix: string;
  /** The service's address; empty for Amazon S3 itself. */
  endpoint: string;
  region: string;
  /** Explicit credentials; when empty, the SDK's usual sources (AWS_* variables, profiles, roles). */
  accessKeyId: string;
  secretAccessKey: string;
  /** Address buckets as a path (`endpoint/bucket/key`), as most self-hosted services need. */
  forcePathStyle: boolean;
}

/** The JSON Web Token algorithms POST /jwt/fetch_api_key can check. */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** One organization's JWT key: the secret (HS) or PEM public key (RS), and the algorithms it allows. */
export interface JwtKey {
  key: string;
  algorithms: JwtAlgorithm[];
}

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
  /** Seconds an event that Redis could not take is retried before the queues it was for are dropped. */
  publishRetrySeconds: number;
  /** Seconds a process sharing Redis may go without renewing its liveness before the others take it for dead. */
  processLivenessSeconds: number;
  /** Seconds the main thread of such a process may be stuck before its liveness is let lapse (a thread of its own renews it meanwhile). */
  processHangSeconds: number;
  /**
   * Most active users (bots included) an organization may have for a user
   * coming online to be announced to everyone in a `presence` event; larger
   * ones learn of it from their regular presence requests.
   */
  presenceEventsMaxUsers: number;
  /** Bytes an event stream may have written and its client not yet taken before it is dropped as too slow. */
  eventStreamMaxUnsentBytes: number;
  /** Authenticated requests allowed per user per window. */
  rateLimitUserRequests: number;
  /** Unauthenticated requests allowed per address per window. */
  rateLimitIpRequests: number;
  /** Length of a rate-limit window, in seconds. */
  rateLimitWindowSeconds: number;
  /** Failed password logins allowed per username per 30 minutes. */
  rateLimitAuthAttempts: number;
  /** Email invitations (one per address, resends included) an organization may send in any 24 hours. */
  invitationsPerDay: number;
  /** Seconds between two runs of scheduled-message delivery; 0 turns delivery off. */
  scheduledMessagesIntervalSeconds: number;
  /** Folder uploaded files are stored in, when no object store is configured. */
  uploadsDir: string;
  /** The S3-compatible object store uploaded files are stored in (S3_BUCKET set), or null for the folder. */
  s3: S3Settings | null;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /**
   * The form of channels' incoming email addresses, `%s` standing for the
   * channel's part (`%s@streams.example.com`); empty when the server has no
   * email gateway, and channels then have no address.
   */
  emailGatewayPattern: string;
  /**
   * Where outgoing mail (invitations) goes: `smtp://user:pass@host:port` or
   * `smtps://...`; empty keeps each mail in the database's outbox instead.
   */
  smtpUrl: string;
  /** The sender address of outgoing mail. */
  emailFrom: string;
  /**
   * The JSON Web Token keys of POST /jwt/fetch_api_key, by organization
   * subdomain ("" for the organization at the root address); an
   * organization without one does not accept tokens.
   */
  jwtAuthKeys: Record<string, JwtKey>;
  /** Whether Welcome Bot sends each new person a direct message (WELCOME_MESSAGES=0 turns it off). */
  welcomeMessages: boolean;
  /** Processes `npm run cluster` starts; 0 for one per core. */
  clusterWorkers: number;
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

/** The object store's settings from the S3_* variables, or null when S3_BUCKET is not set. */
function s3Settings(env: NodeJS.ProcessEnv): S3Settings | null {
  const bucket = env.S3_BUCKET || '';
  if (!bucket) return null;
  const endpoint = env.S3_ENDPOINT || '';
  if (endpoint && !/^https?:\/\//.test(endpoint))
    throw new ConfigError('S3_ENDPOINT must start with http:// or https://');
  const accessKeyId = env.S3_ACCESS_KEY_ID || '';
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || '';
  if (!accessKeyId !== !secretAccessKey)
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  const forcePathStyle = env.S3_FORCE_PATH_STYLE ?? (endpoint ? '1' : '0');
  if (forcePathStyle !== '0' && forcePathStyle !== '1')
    throw new ConfigError('S3_FORCE_PATH_STYLE must be 0 or 1');
  const prefix = (env.S3_KEY_PREFIX || '').replace(/^\/+|\/+$/g, '');
  return {
    bucket,
    keyPrefix: prefix ? `${prefix}/` : '',
    endpoint: endpoint.replace(/\/+$/, ''),
    region: env.S3_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: forcePathStyle === '1',
  };
}

/** JWT_AUTH_KEYS: `{"<subdomain>": {"key": "...", "algorithms": ["HS256"]}}`, checked. */
function jwtAuthKeys(env: NodeJS.ProcessEnv): Record<string, JwtKey> {
  const raw = env.JWT_AUTH_KEYS || '';
  if (raw === '') return {};
  const shape =
    'JWT_AUTH_KEYS must be a JSON object of {"<subdomain>": {"key": "...", "algorithms": ["HS256"]}}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(shape);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(shape);
  const keys: Record<string, JwtKey> = Object.create(null);
  for (const [subdomain, entry] of Object.entries(parsed)) {
    const { key, algorithms } = (entry ?? {}) as { key?: unknown; algorithms?: unknown };
    if (
      typeof key !== 'string' ||
      key === '' ||
      !Array.isArray(algorithms) ||
      algorithms.length === 0
    )
      throw new ConfigError(shape);
    for (const alg of algorithms)
      if (!(JWT_ALGORITHMS as readonly unknown[]).includes(alg))
        throw new ConfigError(
          `JWT_AUTH_KEYS: unsupported algorithm ${JSON.stringify(alg)} (HS256, HS384, HS512, RS256, RS384 or RS512)`,
        );
    keys[subdomain] = { key, algorithms };
  }
  return keys;
}

/** The host name of EXTERNAL_URL; throws when it is not a URL. */
function hostnameOf(externalUrl: string): string {
  try {
    return new URL(externalUrl).hostname;
  } catch {
    throw new ConfigError(`EXTERNAL_URL must be a URL, not "${externalUrl}"`);
  }
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
  const smtpUrl = env.SMTP_URL || '';
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl))
    throw new ConfigError('SMTP_URL must start with smtp:// or smtps:// and name a host');
  const welcomeMessages = env.WELCOME_MESSAGES || '1';
  if (welcomeMessages !== '0' && welcomeMessages !== '1')
    throw new ConfigError('WELCOME_MESSAGES must be 1 (send them) or 0 (do not)');
  const externalUrl = (env.EXTERNAL_URL || `http://${host}:${port}`).replace(/\/+$/, '');
  const emailFrom = env.EMAIL_FROM || `noreply@${hostnameOf(externalUrl)}`;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(emailFrom))
    throw new ConfigError(`EMAIL_FROM must be an email address, not "${emailFrom}"`);
  return {
    port,
    s3: s3Settings(env),
    host,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 1),
    externalUrl,
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'chat:',
    heartbeatSeconds: number(env, 'EVENT_HEARTBEAT_SECONDS', 50),
    queueTimeoutSeconds: number(env, 'EVENT_QUEUE_TIMEOUT_SECONDS', 600),
    queueMaxEvents: integer(env, 'EVENT_QUEUE_MAX_EVENTS', 10000, 1),
    publishRetrySeconds: number(env, 'EVENT_PUBLISH_RETRY_SECONDS', 30),
    processLivenessSeconds: number(env, 'EVENT_PROCESS_LIVENESS_SECONDS', 15),
    processHangSeconds: number(env, 'EVENT_PROCESS_HANG_SECONDS', 60),
    eventStreamMaxUnsentBytes: integer(env, 'EVENT_STREAM_MAX_UNSENT_BYTES', 1 << 20, 1),
    presenceEventsMaxUsers: integer(env, 'PRESENCE_EVENTS_MAX_USERS', 100, 0),
    rateLimitUserRequests: integer(env, 'RATE_LIMIT_USER_REQUESTS', 200, 1),
    rateLimitIpRequests: integer(env, 'RATE_LIMIT_IP_REQUESTS', 100, 1),
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1),
    rateLimitAuthAttempts: integer(env, 'RATE_LIMIT_AUTH_ATTEMPTS', 5, 1),
    invitationsPerDay: integer(env, 'INVITATIONS_PER_DAY', 3000, 1),
    scheduledMessagesIntervalSeconds: integer(env, 'SCHEDULED_MESSAGES_INTERVAL_SECONDS', 5),
    uploadsDir: resolve(env.UPLOADS_DIR || resolve(projectRoot, 'data', 'uploads')),
    trustProxy: env.TRUST_PROXY === '1',
    emailGatewayPattern,
    smtpUrl,
    emailFrom,
    jwtAuthKeys: jwtAuthKeys(env),
    welcomeMessages: welcomeMessages === '1',
    clusterWorkers: integer(env, 'CLUSTER_WORKERS', 0),
    logLevel,
  };
}

export { ConfigError };

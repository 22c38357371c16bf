// The one place errors become JSON: typed ApiErrors keep their code, status,
// fields and headers; the failures of a dependency that cannot be reached
// (the database, Redis) are a 503 SERVICE_UNAVAILABLE the client may retry;
// anything else is logged with the request's ID and answered as a 500 that
// reveals nothing of the failure.
import type Koa from 'koa';
import { ApiError } from '../errors';
import type { Logger } from '../log';

/** Seconds a client is told to wait (Retry-After) before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 1;

/** Kinds of driver-adapter failures (Prisma's pg adapter) meaning the database was not reached or dropped the connection. */
const DATABASE_CONNECTION_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
/**
 * Prisma's codes for the same: the server cannot be reached (P1001), timed out
 * (P1002, P1008), closed the connection (P1017), or no connection of the pool
 * came free in time (P2024), nor a transaction could start in time (P2028).
 */
const DATABASE_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
/** PostgreSQL's codes for a server that is stopping or starting, and for broken connections (class 08). */
const POSTGRES_UNAVAILABLE = /^(57P0[123]|08\w{3}|53300)$/;
/** Messages of ioredis errors (plain Errors, without a code) that mean the connection is down. */
const REDIS_CONNECTION_MESSAGES = [
  /^Connection is closed\.$/,
  /^Stream isn't writeable/,
  /^Command timed out$/,
  /^Command aborted due to connection close$/,
  /^Reached the max retries per request limit/,
  /^LOADING /,
];
/** Messages of node-postgres errors that reach us unwrapped when a connection is lost. */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error/,
];

/**
 * Which dependency `error` says cannot be reached: the database (a Prisma or
 * node-postgres connection failure) or Redis (an ioredis one); undefined for
 * any other error.
 */
export function unreachableDependency(error: unknown): 'database' | 'redis' | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, meta } = error as { code?: unknown; meta?: { driverAdapterError?: unknown } };
  const adapterError = (meta?.driverAdapterError ?? error) as {
    name?: string;
    cause?: { kind?: string; originalCode?: string; code?: string };
  };
  if (adapterError.name === 'DriverAdapterError') {
    const cause = adapterError.cause ?? {};
    if (DATABASE_CONNECTION_KINDS.has(cause.kind ?? '')) return 'database';
    if (POSTGRES_UNAVAILABLE.test(cause.originalCode ?? cause.code ?? '')) return 'database';
  }
  if (typeof code === 'string' && DATABASE_CONNECTION_CODES.has(code)) return 'database';
  // SQLite's own: another process held the database past the busy timeout
  // (raw statements and write transactions report it unwrapped).
  if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) return 'database';
  if (error.name === 'PrismaClientInitializationError') return 'database';
  // Raw queries' connection failures (db/pg-statements.ts), and PostgreSQL's own
  // refusals of a server stopping or starting, answered on a raw query.
  if (error.name === 'DatabaseConnectionError') return 'database';
  if ('severity' in error && typeof code === 'string' && POSTGRES_UNAVAILABLE.test(code))
    return 'database';
  if (PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message))) return 'database';
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'AbortError') return 'redis';
  if (REDIS_CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message))) return 'redis';
  return undefined;
}

/** An error as it is answered: status, extra headers and the envelope. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** The answer to `error`, raised while serving `method path` (logged when it is not an expected refusal). */
export function errorAnswer(
  error: unknown,
  log: Logger,
  request: { id: string; method: string; path: string },
): ErrorAnswer {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      headers: error.headers,
      body: { result: 'error', msg: error.message, code: error.code, ...error.extra },
    };
  }
  const dependency = unreachableDependency(error);
  if (dependency) {
    log.warn('dependency unavailable', {
      request_id: request.id,
      method: request.method,
      path: request.path,
      dependency,
      error: error instanceof Error ? error.message.trim().split('\n').at(-1) : String(error),
    });
    return {
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      body: {
        result: 'error',
        msg: `Service unavailable: ${dependency === 'database' ? 'the database' : 'Redis'} cannot be reached; try again shortly`,
        code: 'SERVICE_UNAVAILABLE',
      },
    };
  }
  // HTTP errors raised by Koa's middleware for requests it cannot read.
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return {
      status: status === 413 ? 413 : 400,
      headers: {},
      body: {
        result: 'error',
        msg: status === 413 ? 'Request body too large' : 'Malformed request body',
        code: 'BAD_REQUEST',
      },
    };
  }
  log.error('unhandled error', {
    request_id: request.id,
    method: request.method,
    path: request.path,
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return {
    status: 500,
    headers: {},
    body: {
      result: 'error',
      msg: 'Internal server error',
      code: 'INTERNAL_SERVER_ERROR',
      request_id: request.id,
    },
  };
}

/** Writes `error` to the response in the error envelope. */
export function sendError(ctx: Koa.Context, error: unknown, log: Logger, requestId: string): void {
  const answer = errorAnswer(error, log, { id: requestId, method: ctx.method, path: ctx.path });
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.body = answer.body;
}

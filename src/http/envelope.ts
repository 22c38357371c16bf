// The one place errors become JSON: typed ApiErrors keep their code, status,
// fields and headers; anything else is logged with the request's ID and
// answered as a 500 that reveals nothing of the failure.
import type Koa from 'koa';
import { ApiError } from '../errors';
import type { Logger } from '../log';

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

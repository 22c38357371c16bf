// The one place errors become JSON: typed ApiErrors keep their code, status,
// fields and headers; anything else is logged with the request's ID and
// answered as a 500 that reveals nothing of the failure.
import type Koa from 'koa';
import { ApiError } from '../errors';
import type { Logger } from '../log';

/** Writes `error` to the response in the error envelope. */
export function sendError(ctx: Koa.Context, error: unknown, log: Logger, requestId: string): void {
  if (error instanceof ApiError) {
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.body = { result: 'error', msg: error.message, code: error.code, ...error.extra };
    return;
  }
  // HTTP errors raised by Koa's middleware for requests it cannot read.
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    ctx.status = status === 413 ? 413 : 400;
    ctx.body = {
      result: 'error',
      msg: status === 413 ? 'Request body too large' : 'Malformed request body',
      code: 'BAD_REQUEST',
    };
    return;
  }
  log.error('unhandled error', {
    request_id: requestId,
    method: ctx.method,
    path: ctx.path,
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  ctx.status = 500;
  ctx.body = {
    result: 'error',
    msg: 'Internal server error',
    code: 'INTERNAL_SERVER_ERROR',
    request_id: requestId,
  };
}

// Errors are values carrying the API's code, the HTTP status and any extra
// fields. They are thrown where a problem is found and turned into the
// {"result":"error","msg","code",...} envelope in one place (src/http/envelope.ts).

/** An error the client caused, answered with `status` and the envelope. */
export class ApiError extends Error {
  constructor(
    message: string,
    /** Machine-readable code; BAD_REQUEST unless a more specific one exists. */
    readonly code: string = 'BAD_REQUEST',
    /** HTTP status of the answer. */
    readonly status: number = 400,
    /** Fields added to the envelope after `code`. */
    readonly extra: Record<string, unknown> = {},
    /** HTTP headers to add to the answer. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 400 with the default code: the generic refusal. */
export function badRequest(message: string): ApiError {
  return new ApiError(message);
}

/** 401: missing or unusable credentials. */
export function unauthorized(message: string, code = 'UNAUTHORIZED'): ApiError {
  return new ApiError(message, code, 401, {}, { 'WWW-Authenticate': 'Basic realm="zulip"' });
}

/** 404 for objects owned by the user (drafts, scheduled messages, views). */
export function notFound(message: string, code = 'BAD_REQUEST'): ApiError {
  return new ApiError(message, code, 404);
}

/** 400 REQUEST_VARIABLE_MISSING for a required parameter that was not sent. */
export function missingArgument(name: string): ApiError {
  return new ApiError(`Missing '${name}' argument`, 'REQUEST_VARIABLE_MISSING', 400, {
    var_name: name,
  });
}

/** 400 BAD_EVENT_QUEUE_ID for a queue that does not exist (or no longer). */
export function badEventQueue(queueId: string): ApiError {
  return new ApiError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, {
    queue_id: queueId,
  });
}

/** 429 RATE_LIMIT_HIT with the seconds to wait, in the body and the Retry-After header. */
export function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'API usage exceeded rate limit',
    'RATE_LIMIT_HIT',
    429,
    { 'retry-after': retryAfterSeconds },
    { 'Retry-After': String(Math.ceil(retryAfterSeconds)) },
  );
}

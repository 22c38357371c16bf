// The lean path: event-queue polls, streams and deletions (GET and DELETE
// /api/v1/events, GET /api/v1/events/stream) that carry no body are answered straight from node:http,
// without building Koa's context. A long-poll is the request a server
// answers most often and holds longest: through Koa each one cost about
// twice the CPU of the same cycle in bare node:http, and kept Koa's context,
// request, response and middleware frames alive for as long as it waited.
//
// Nothing else changes for these requests: they run the same route as every
// operation (`serve` of routes.ts: authentication, rate limit, validation
// against openapi.yaml, the handler), and get the same request ID, log line,
// metrics and error envelope as through Koa (`RequestRecorder` of app.ts). A
// request this path does not take (another path or method, a body, HEAD) goes
// on to Koa.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ParkedAnswer } from '../events/parked';
import { EventStream } from '../events/stream';
import { errorAnswer } from './envelope';
import { writeEventStream, type StreamStats } from './event-stream';
import { parseUrlencoded } from './form';
import { hostOf, ipOf } from './request-origin';
import { parkedBody, type Route, type RequestState } from './routes';
import type { OperationSpec } from './spec';
import type { Logger } from '../log';

/** The operations the lean path answers. */
const LEAN_OPERATIONS = new Set(['get-events', 'stream-events', 'delete-queue']);

/** What the front ends share around each request: its ID, and the log line and metrics once answered. */
export interface RequestRecorder {
  /** The request's ID: a trusted proxy's X-Request-Id, or a new one. */
  requestId(header: string | undefined): string;
  /** Logs and counts an answered request. */
  record(request: {
    id: string;
    method: string;
    path: string;
    operation: string;
    status: number;
    ms: number;
    userId?: number;
  }): void;
}

/** What the lean path shares between its requests. */
interface LeanContext {
  serve: Route;
  trustProxy: boolean;
  log: Logger;
  recorder: RequestRecorder;
  streams: StreamStats;
}

/**
 * One request on the lean path, from its start to its answer; it is also the
 * request's state (operation and user) for the log line. A parked poll keeps
 * this object and two small callbacks, nothing more, while it waits.
 */
class LeanRequest implements RequestState {
  operation: string;
  userId?: number;
  /** The answer's headers: the request ID, then those the route sets (rate limit, refusal). */
  readonly headers: Record<string, string>;
  private readonly started = performance.now();

  constructor(
    private readonly context: LeanContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly path: string,
    private readonly id: string,
    op: OperationSpec,
  ) {
    this.operation = op.operationId;
    this.headers = { 'X-Request-Id': id };
  }

  /** Runs the operation's route and answers it (or parks the poll it answered with). */
  async run(op: OperationSpec, query: string): Promise<void> {
    const { req, res, headers, context } = this;
    try {
      const body = await context.serve(op, {
        pathParams: {},
        query: parseUrlencoded(query, 'query string'),
        body: undefined,
        files: () => ({}),
        authorization: req.headers.authorization,
        ip: () => ipOf(req, context.trustProxy),
        host: () => hostOf(req, context.trustProxy),
        userAgent: req.headers['user-agent'],
        req,
        setHeader: (name, value) => (headers[name] = value),
        state: this,
      });
      if (body instanceof EventStream) {
        await writeEventStream(res, body, headers, {
          stats: context.streams,
          log: context.log,
          requestId: this.id,
        });
        this.record(200);
      } else if (body instanceof ParkedAnswer) this.park(body);
      else this.answer(200, body);
    } catch (error) {
      this.refuse(error);
    }
  }

  /** Answers when the parked poll is answered; a client that goes away first cancels it. */
  private park(parked: ParkedAnswer): void {
    const { poll } = parked;
    poll.onAnswer((answer) => {
      try {
        this.answer(200, parkedBody(parked, answer));
      } catch (error) {
        this.refuse(error);
      }
    });
    // The client may have gone while the poll was checked (on Redis).
    if (this.req.destroyed) poll.cancel();
    else this.req.on('close', () => poll.cancel());
  }

  private answer(status: number, body: Buffer): void {
    const { res } = this;
    if (!res.destroyed) {
      res.statusCode = status;
      for (const [name, value] of Object.entries(this.headers)) res.setHeader(name, value);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', body.length);
      res.end(body);
    }
    this.record(status);
  }

  private refuse(error: unknown): void {
    const { id, req, path } = this;
    const refusal = errorAnswer(error, this.context.log, { id, method: req.method!, path });
    Object.assign(this.headers, refusal.headers);
    this.answer(refusal.status, Buffer.from(JSON.stringify(refusal.body)));
  }

  private record(status: number): void {
    this.context.recorder.record({
      id: this.id,
      method: this.req.method!,
      path: this.path,
      operation: this.operation,
      status,
      ms: performance.now() - this.started,
      userId: this.userId,
    });
  }
}

/**
 * The lean front end: answers the requests it takes and returns true, or
 * returns false for Koa to take the request.
 */
export function leanPath(options: {
  serve: Route;
  operations: OperationSpec[];
  trustProxy: boolean;
  log: Logger;
  recorder: RequestRecorder;
  /** Where the event streams written here are counted. */
  streams: StreamStats;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { serve, trustProxy, log, recorder, streams } = options;
  const context: LeanContext = { serve, trustProxy, log, recorder, streams };
  const taken = new Map(
    options.operations
      .filter((op) => LEAN_OPERATIONS.has(op.operationId))
      .map((op) => [`${op.method} /api/v1${op.path}`, op]),
  );
  return (req, res) => {
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    const op = taken.get(`${req.method} ${path}`);
    if (!op) return false;
    const length = req.headers['content-length'];
    if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0'))
      return false;
    const requestIdHeader = req.headers['x-request-id'];
    const id = recorder.requestId(
      Array.isArray(requestIdHeader) ? requestIdHeader.join(', ') : requestIdHeader,
    );
    const request = new LeanRequest(context, req, res, path, id, op);
    void request.run(op, mark === -1 ? '' : url.slice(mark + 1));
    return true;
  };
}

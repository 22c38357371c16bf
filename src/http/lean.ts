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
import { EventStream } from '../events/stream';
import { errorAnswer } from './envelope';
import { writeEventStream, type StreamStats } from './event-stream';
import { parseUrlencoded } from './form';
import type { Route, RequestState } from './routes';
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

/** The first of a header's comma-separated values, trimmed. */
function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  return value ? value.split(',', 1)[0].trim() : undefined;
}

/** The request's host as Koa reads it: X-Forwarded-Host from a trusted proxy, else Host. */
function hostOf(req: IncomingMessage, trustProxy: boolean): string {
  let host =
    (trustProxy && firstValue(req.headers['x-forwarded-host'])) || firstValue(req.headers.host);
  if (!host) return '';
  // A Host holding userinfo ("user@host") is invalid; the URL parser takes the host out.
  if (host.includes('@')) {
    try {
      host = new URL(`http://${host}`).host;
    } catch {
      return '';
    }
  }
  return host;
}

/** The client's address as Koa reads it: the first X-Forwarded-For entry from a trusted proxy, else the socket's. */
function ipOf(req: IncomingMessage, trustProxy: boolean): string {
  return (
    (trustProxy && firstValue(req.headers['x-forwarded-for'])) || req.socket.remoteAddress || ''
  );
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

    const started = performance.now();
    const requestIdHeader = req.headers['x-request-id'];
    const id = recorder.requestId(
      Array.isArray(requestIdHeader) ? requestIdHeader.join(', ') : requestIdHeader,
    );
    const state: RequestState = {};
    const headers: Record<string, string> = { 'X-Request-Id': id };
    const record = (status: number) =>
      recorder.record({
        id,
        method: req.method!,
        path,
        operation: state.operation ?? op.operationId,
        status,
        ms: performance.now() - started,
        userId: state.userId,
      });
    const answer = (status: number, body: Buffer) => {
      if (!res.destroyed) {
        res.statusCode = status;
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Content-Length', body.length);
        res.end(body);
      }
      record(status);
    };
    const run = async () => {
      try {
        const body = await serve(op, {
          pathParams: {},
          query: parseUrlencoded(mark === -1 ? '' : url.slice(mark + 1), 'query string'),
          body: undefined,
          files: () => ({}),
          authorization: req.headers.authorization,
          ip: () => ipOf(req, trustProxy),
          host: () => hostOf(req, trustProxy),
          userAgent: req.headers['user-agent'],
          req,
          setHeader: (name, value) => (headers[name] = value),
          state,
        });
        if (body instanceof EventStream) {
          await writeEventStream(res, body, headers, { stats: streams, log, requestId: id });
          record(200);
        } else answer(200, body);
      } catch (error) {
        const refusal = errorAnswer(error, log, { id, method: req.method!, path });
        Object.assign(headers, refusal.headers);
        answer(refusal.status, Buffer.from(JSON.stringify(refusal.body)));
      }
    };
    void run();
    return true;
  };
}

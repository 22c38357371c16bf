// The application: the lean path for event-queue polls (lean.ts), then Koa:
// request IDs, one log line and the metrics of each request, the error
// envelope, the operator endpoints (health, readiness, metrics), body reading,
// the served contract and its docs, the route table built from openapi.yaml,
// and the answers for paths and methods that match no operation.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rm } from 'node:fs/promises';
import Koa from 'koa';
import { handlers, publicHandlers } from '../handlers';
import { EMOJI_DATA_PATH } from '../lib/emoji/emoji-data';
import type { Services } from '../services';
import { bodyReader, readsBody } from './body';
import { contractServing } from './contract';
import { docsServing } from './docs';
import { emojiDataServing } from './emoji-data';
import { newStreamStats } from './event-stream';
import { sendError } from './envelope';
import { fileServing } from './files';
import { joinPages } from './join';
import { unsubscribePages } from './unsubscribe';
import { leanPath, type RequestRecorder } from './lean';
import { createMetrics } from './metrics';
import { operatorEndpoints } from './operator';
import { jsonMirror } from './session';
import { webClient } from './web';
import { buildRouter, methodsByShape, type RequestState } from './routes';
import { loadOperations, openContract, specModule, specPath, type ContractBackend } from './spec';
import { RequestValidators, validatorCacheFile } from './validators';

/** Options of the application. */
export interface AppOptions {
  /** Compile each operation's validators on its first request, without the cache (tests). */
  lazy?: boolean;
  /** Add prom-client's process metrics to /metrics (the server started by npm start). */
  processMetrics?: boolean;
}

/** The operation name of a request no operation took: the contract, the docs, files, or `none`. */
function operationOutsideApi(path: string): string {
  if (path === '/openapi.json' || path === '/openapi.yaml') return 'openapi';
  if (path === '/api/docs' || path.startsWith('/api/docs/')) return 'docs';
  if (path.startsWith('/user_uploads/')) return 'user-uploads';
  if (path.startsWith('/user_avatars/')) return 'user-avatars';
  if (path === EMOJI_DATA_PATH) return 'emoji-data';
  if (path.startsWith('/json/')) return 'json';
  return 'none';
}

/** An X-Request-Id set by a trusted proxy, when it is a plain token. */
function forwardedRequestId(header: string): string | undefined {
  return /^[\w.:-]{1,128}$/.test(header) ? header : undefined;
}

/**
 * A new request ID. randomUUID builds its text from some twenty pieces, kept
 * apart (about half a kilobyte) until something flattens it: a long-poll keeps
 * its ID for as long as it waits, so it gets a flat copy.
 */
function newRequestId(): string {
  return randomUUID().toLowerCase();
}

/** The application: the request listener that puts the lean path (lean.ts) before Koa. */
export interface App {
  handle: (req: IncomingMessage, res: ServerResponse) => void;
}

/** Builds the application for `services`. */
export async function createApp(services: Services, options: AppOptions = {}): Promise<App> {
  const operations = loadOperations(specPath);
  // openapi-backend is needed only to compile validators the caches lack.
  let contract: ContractBackend | undefined;
  // Every operation's validators are made ready now (from the cache when it
  // holds them), or with `lazy` (tests, which start many servers) compiled on
  // each operation's first request.
  const cacheFile = validatorCacheFile(specPath, specModule);
  const validators = new RequestValidators(
    () => (contract ??= openContract(specPath)),
    services.log,
    options.lazy ? cacheFile.replace(/\.js$/, '-operations') : null,
  );
  if (!options.lazy)
    validators.prepare(
      operations.map((op) => op.operationId),
      cacheFile,
    );
  const streams = newStreamStats();
  const { router, staticRoutes, serve } = buildRouter(
    validators,
    operations,
    services,
    handlers,
    publicHandlers,
    streams,
  );
  const shapes = methodsByShape(operations);
  const app = new Koa({ proxy: services.config.trustProxy });
  const { log } = services;

  const metrics = createMetrics(
    { ...services, streams },
    { processMetrics: options.processMetrics },
  );
  const trustProxy = services.config.trustProxy;
  const recorder = requestRecorder(services, metrics);
  app.use(recordedRequests(recorder, log));
  // An API request without a body, on a path without parameters (GET
  // /users/me, /messages, ...), goes straight to its route: the middleware
  // up to the route table has nothing to do for it. Any other request takes
  // the whole chain (in which the same route would have answered it).
  app.use((ctx, next) =>
    ctx.path.startsWith('/api/v1/') && !readsBody(ctx) ? staticRoutes(ctx, next) : next(),
  );

  // Health, readiness and metrics, then the contract, its docs, the emoji
  // data and the web client at / (web.ts): none of them under /api/v1/,
  // whose requests go past them without asking each.
  app.use(
    outsideApi([
      operatorEndpoints(services, metrics),
      contractServing(services.config.externalUrl),
      docsServing(),
      emojiDataServing(),
      webClient(services),
    ]),
  );
  app.use(bodyReader());
  // The join page of invitations and the unsubscribe links of notification emails.
  app.use(outsideApi([joinPages(services), unsubscribePages(services)]));

  app.use(uploadCleanup());

  // The session-authenticated mirror of the API under /json (session.ts).
  app.use(jsonMirror());
  app.use(staticRoutes);
  app.use(router.routes());
  // Uploaded files and custom emoji images, outside /api/v1.
  app.use(fileServing(services));

  app.use(unmatchedRequests(shapes));

  const lean = leanPath({ serve, operations, trustProxy, log, recorder, streams });
  const koa = app.callback();
  return { handle: (req, res) => void (lean(req, res) || koa(req, res)) };
}

/** Names each request and, once answered, counts it in the metrics and logs its line. */
function requestRecorder(
  services: Services,
  metrics: ReturnType<typeof createMetrics>,
): RequestRecorder {
  const { log } = services;
  const trustProxy = services.config.trustProxy;
  return {
    requestId: (header) => (trustProxy && header && forwardedRequestId(header)) || newRequestId(),
    record: ({ id, method, path, operation, status, ms, userId }) => {
      metrics.observeRequest(operation, status, ms / 1000);
      if (log.enabled('info')) {
        const fields: Record<string, unknown> = { request_id: id, method };
        // Paths of uploaded files are left out: temporary download URLs carry a token.
        if (operation !== 'user-uploads') fields.path = path;
        fields.operation = operation;
        fields.status = status;
        fields.duration_ms = Math.round(ms * 1000) / 1000;
        if (userId !== undefined) fields.user_id = userId;
        log.info('request', fields);
      }
    },
  };
}

/** The outermost middleware: a request ID, errors turned into the envelope, and the request recorded. */
function recordedRequests(recorder: RequestRecorder, log: Services['log']): Koa.Middleware {
  return async (ctx, next) => {
    const requestId = recorder.requestId(ctx.get('x-request-id'));
    const started = performance.now();
    ctx.res.setHeader('X-Request-Id', requestId);
    try {
      await next();
    } catch (error) {
      sendError(ctx, error, log, requestId);
    }
    const state = ctx.state as RequestState;
    recorder.record({
      id: requestId,
      method: ctx.method,
      path: ctx.path,
      operation: state.operation ?? operationOutsideApi(ctx.path),
      status: ctx.status,
      ms: performance.now() - started,
      userId: state.userId,
    });
  };
}

/**
 * `middlewares` in turn, for requests outside /api/v1/; requests of the API
 * go straight on to the next middleware.
 */
function outsideApi(middlewares: Koa.Middleware[]): Koa.Middleware {
  return (ctx, next) => {
    if (ctx.path.startsWith('/api/v1/')) return next();
    const run = async (i: number): Promise<void> => {
      if (i === middlewares.length) await next();
      else await middlewares[i](ctx, () => run(i + 1));
    };
    return run(0);
  };
}

/**
 * Uploaded files arrive in a temporary folder; whatever a handler did not
 * move into the store is removed once the request is answered.
 */
function uploadCleanup(): Koa.Middleware {
  const cleaned: Koa.Middleware = async (ctx, next) => {
    try {
      await next();
    } finally {
      for (const value of Object.values(ctx.request.files ?? {})) {
        for (const file of Array.isArray(value) ? value : [value])
          void rm(file.filepath, { force: true }).catch(() => undefined);
      }
    }
  };
  // The files, if any, were read by bodyReader before this point.
  return (ctx, next) => (ctx.request.files === undefined ? next() : cleaned(ctx, next));
}

/** Answers what no route took: 204 to OPTIONS, 405 to a method the path lacks, 404 otherwise. */
function unmatchedRequests(shapes: ReturnType<typeof methodsByShape>): Koa.Middleware {
  return async (ctx) => {
    if (!ctx.path.startsWith('/api/v1/') && ctx.path !== '/api/v1') {
      ctx.status = 404;
      ctx.body = { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' };
      return;
    }
    const match = shapes.find((s) => s.pattern.test(ctx.path));
    if (match && ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', match.methods.join(', '));
      return;
    }
    if (match && !match.methods.includes(ctx.method)) {
      ctx.status = 405;
      ctx.set('Allow', match.methods.join(', '));
      ctx.body = { result: 'error', msg: 'Method Not Allowed', allowed_methods: match.methods };
      return;
    }
    ctx.status = 404;
    ctx.body = { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' };
  };
}

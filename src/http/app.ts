// The Koa application: request IDs and access logs, the error envelope, body
// reading, the served contract, the route table built from openapi.yaml, and
// the answers for paths and methods that match no operation.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import Koa from 'koa';
import { handlers, publicHandlers } from '../handlers';
import type { Services } from '../services';
import { bodyReader } from './body';
import { contractServing } from './contract';
import { sendError } from './envelope';
import { fileServing } from './files';
import { buildRouter, methodsByShape } from './routes';
import { loadSpec, specPath } from './spec';

/** Builds the application for `services`; `lazy` defers compiling validators to each operation's first request. */
export async function createApp(
  services: Services,
  options: { lazy?: boolean } = {},
): Promise<Koa> {
  const { api, operations } = await loadSpec(specPath);
  const { router, staticRoutes } = buildRouter(
    api,
    operations,
    services,
    handlers,
    publicHandlers,
    options.lazy,
  );
  const shapes = methodsByShape(operations);
  const app = new Koa({ proxy: services.config.trustProxy });
  const { log } = services;

  app.use(async (ctx, next) => {
    const requestId = randomUUID();
    const started = process.hrtime.bigint();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (error) {
      sendError(ctx, error, log, requestId);
    }
    if (log.enabled('debug')) {
      log.debug('request', {
        request_id: requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    }
  });

  // The contract, outside /api/v1.
  app.use(contractServing(services.config.externalUrl));
  app.use(bodyReader());

  // Uploaded files arrive in a temporary folder; whatever a handler did not
  // move into the store is removed once the request is answered.
  app.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      for (const value of Object.values(ctx.request.files ?? {})) {
        for (const file of Array.isArray(value) ? value : [value])
          void rm(file.filepath, { force: true }).catch(() => undefined);
      }
    }
  });

  app.use(staticRoutes);
  app.use(router.routes());
  // Uploaded files and custom emoji images, outside /api/v1.
  app.use(fileServing(services));

  app.use(async (ctx) => {
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
  });

  return app;
}

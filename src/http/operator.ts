// The endpoints operators and their tools poll, outside /api/v1 and without
// credentials: GET /health (the process answers), GET /ready (the database
// answers and is migrated) and GET /metrics (Prometheus text format).
import type Koa from 'koa';
import { checkReadiness } from '../db/readiness';
import type { Services } from '../services';
import type { Metrics } from './metrics';

/** The paths this module answers, with the operation name logs and metrics give them. */
const operatorPaths: Record<string, string> = {
  '/health': 'health',
  '/ready': 'ready',
  '/metrics': 'metrics',
};

/** Koa middleware answering GET and HEAD for /health, /ready and /metrics; other paths pass through. */
export function operatorEndpoints(services: Services, metrics: Metrics): Koa.Middleware {
  return async (ctx, next) => {
    const operation = operatorPaths[ctx.path];
    if (!operation) return next();
    ctx.state.operation = operation;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'HEAD'] };
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    if (operation === 'health') {
      ctx.body = { status: 'ok' };
    } else if (operation === 'ready') {
      const readiness = await checkReadiness(services.db);
      if (readiness.ready) {
        ctx.body = {
          status: 'ready',
          database: services.db.provider,
          migrations: readiness.migrations,
        };
      } else {
        services.log.warn('not ready', { reason: readiness.reason, detail: readiness.detail });
        ctx.status = 503;
        ctx.body = { status: 'unavailable', reason: readiness.reason };
      }
    } else {
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    }
  };
}

// The endpoints operators and their tools poll, outside /api/v1 and without
// credentials: GET /health (the process answers), GET /ready (the database
// answers and is migrated, and Redis, when there is one, answers; otherwise
// the reason names the one that does not) and GET /metrics (Prometheus text
// format).
import type Koa from 'koa';
import { checkReadiness, READINESS_TIMEOUT_MS, type Readiness } from '../db/readiness';
import type { RedisLink } from '../events/redis';
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
      const [database, redis] = await Promise.all([
        checkReadiness(services.db),
        services.redis ? checkRedis(services.redis) : undefined,
      ]);
      const readiness = combine(database, redis);
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

/** The database's readiness, with Redis's reason added when Redis is down too (or alone). */
function combine(database: Readiness, redis: Readiness | undefined): Readiness {
  if (!redis || redis.ready) return database;
  if (database.ready) return redis;
  return { ...database, reason: `${database.reason}; ${redis.reason}` };
}

/** Whether `redis` answers a PING within the readiness timeout, on both its connections. */
async function checkRedis(redis: RedisLink): Promise<Readiness> {
  const down: Readiness = { ready: false, reason: 'Redis cannot be reached' };
  if (!redis.connected) return down;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), READINESS_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([redis.command.ping(), late]);
    return answer === 'PONG' ? { ready: true, migrations: 0 } : down;
  } catch (error) {
    return { ...down, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

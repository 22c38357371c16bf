// The web client's browser session, as Zulip's web app has it: POST /login
// sets an HttpOnly, SameSite cookie naming a session, and every operation of
// the route table is also served under /json (in place of /api/v1),
// authenticated by that cookie alone; a request under /json that changes
// something must repeat the session's CSRF token in its X-CSRFToken header.
// The token reaches the page in the answer of POST /login, and in the page
// the server serves at / (see web.ts).
import { timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { doCreateSession, doDeleteSession } from '../actions/users/sessions';
import { ApiError } from '../errors';
import type { SessionControl } from '../handlers/types';
import { subdomainOf } from '../lib/realm/realms';
import type { AuthUser } from '../lib/users/credentials';
import { SESSION_LIFETIME_MS, sessionByToken } from '../lib/users/sessions';
import type { Services } from '../services';

/** The name of the session cookie (Zulip's). */
export const SESSION_COOKIE = 'sessionid';
/** The prefix of the session-authenticated mirror of /api/v1. */
export const JSON_PREFIX = '/json';

/** The session of one request: sign-in and sign-out, and the user of a request under /json. */
export interface RequestSession extends SessionControl {
  /** Whether the request came under /json, where the session is the only credential. */
  mirrored: boolean;
  /** The signed-in user of a request under /json, or the refusal (401, or 403 for CSRF). */
  authenticate(): Promise<AuthUser>;
}

/** Whether `ctx` came under /json (set by jsonMirror). */
function isMirrored(ctx: Koa.Context): boolean {
  return (ctx.state as { mirrored?: boolean }).mirrored === true;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const notLoggedIn = () =>
  new ApiError('Not logged in: API authentication or user session required', 'UNAUTHORIZED', 401);

/** The signed-in user of a cookie, or null when there is none, it ended, or the account may not use it here. */
export async function sessionUser(
  ctx: Koa.Context,
  services: Services,
): Promise<{ auth: AuthUser; csrfToken: string } | null> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (!token) return null;
  const now = new Date();
  const session = await services.db.read((tx) => sessionByToken(tx, token, now));
  if (!session) return null;
  const row = await services.db.read((tx) =>
    tx.user.findUnique({ where: { id: session.userId }, include: { realm: true } }),
  );
  if (!row || !row.isActive || row.realm.deactivated) return null;
  if (row.realm.stringId !== subdomainOf(ctx.host, services.config.externalUrl)) return null;
  const { realm, ...user } = row;
  return { auth: { user, realm }, csrfToken: session.csrfToken };
}

/** The session of the request in `ctx`. */
export function requestSession(ctx: Koa.Context, services: Services): RequestSession {
  return {
    mirrored: isMirrored(ctx),
    async authenticate() {
      const found = await sessionUser(ctx, services);
      if (!found) throw notLoggedIn();
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        const sent = ctx.get('x-csrftoken');
        if (!sent) throw new ApiError('CSRF error: CSRF token missing.', 'CSRF_FAILED', 403);
        if (!sameText(sent, found.csrfToken))
          throw new ApiError('CSRF error: CSRF token incorrect.', 'CSRF_FAILED', 403);
      }
      return found.auth;
    },
    async start(userId) {
      const session = await doCreateSession(services.db, userId, new Date());
      ctx.cookies.set(SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: ctx.secure,
        maxAge: SESSION_LIFETIME_MS,
        overwrite: true,
      });
      return session.csrfToken;
    },
    async end() {
      const token = ctx.cookies.get(SESSION_COOKIE);
      if (token) await doDeleteSession(services.db, token);
      ctx.cookies.set(SESSION_COOKIE, '', {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: ctx.secure,
        expires: new Date(0),
        overwrite: true,
      });
    },
  };
}

/**
 * Koa middleware serving /json/... as /api/v1/...: the request goes on to the
 * route table with its path rewritten and marked as mirrored, and its 401s
 * carry no WWW-Authenticate header (a browser would ask for a password).
 */
export function jsonMirror(): Koa.Middleware {
  const mirror: Koa.Middleware = async (ctx, next) => {
    (ctx.state as { mirrored?: boolean }).mirrored = true;
    ctx.path = `/api/v1${ctx.path.slice(JSON_PREFIX.length)}`;
    try {
      await next();
    } catch (error) {
      if (error instanceof ApiError && error.headers['WWW-Authenticate'] !== undefined) {
        const headers = { ...error.headers };
        delete headers['WWW-Authenticate'];
        throw new ApiError(error.message, error.code, error.status, error.extra, headers);
      }
      throw error;
    }
  };
  // Other paths go on at once, without an async frame of their own.
  return (ctx, next) =>
    ctx.path === JSON_PREFIX || ctx.path.startsWith(`${JSON_PREFIX}/`) ? mirror(ctx, next) : next();
}

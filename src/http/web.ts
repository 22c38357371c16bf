// Serves the web client (web/, built by Vite into web/dist) at the root
// address of every organization: GET / answers its page, with the CSRF token
// of the browser's session in a <meta> tag when it is signed in (as Zulip's
// page carries it), and /web-assets/... the files the page loads. Nothing on
// the page loads from elsewhere: its Content-Security-Policy allows this
// server alone.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import type Koa from 'koa';
import { projectRoot } from '../paths';
import type { Services } from '../services';
import { sessionUser } from './session';

/** Where the built client is. */
export const WEB_DIST = join(projectRoot, 'web', 'dist');
/** The address prefix of the client's files (Vite's `base`). */
export const WEB_ASSETS = '/web-assets/';

const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Koa middleware answering GET and HEAD of / and /web-assets/...; other requests pass through. */
export function webClient(services: Services, dist = WEB_DIST): Koa.Middleware {
  const files = new Map<string, Promise<{ body: Buffer; etag: string } | null>>();
  const load = (path: string) => {
    let entry = files.get(path);
    if (!entry) {
      entry = readFile(path).then(
        (body) => ({
          body,
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
        }),
        () => null,
      );
      files.set(path, entry);
    }
    return entry;
  };
  return async (ctx, next) => {
    const isPage = ctx.path === '/' || ctx.path === '/index.html';
    if (!isPage && !ctx.path.startsWith(WEB_ASSETS)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'HEAD'] };
      return;
    }
    ctx.state.operation = 'web';
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (isPage) {
      // Read anew each time: a rebuild of the client needs no restart.
      const page = await readFile(join(dist, 'index.html'), 'utf8').catch(() => null);
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/html; charset=utf-8';
      if (page === null) {
        ctx.status = 503;
        ctx.body =
          '<!DOCTYPE html><title>Web client not built</title><p>The web client is not built: run <code>npm run build:web</code>.</p>';
        return;
      }
      const session = await sessionUser(ctx, services);
      const meta = session
        ? `<meta name="csrf-token" content="${escapeAttribute(session.csrfToken)}">`
        : '';
      ctx.set('Content-Security-Policy', contentSecurityPolicy);
      ctx.set('Referrer-Policy', 'same-origin');
      ctx.body = page.replace('<!--session-->', meta);
      return;
    }
    const relative = normalize(ctx.path.slice(WEB_ASSETS.length));
    const type = types[/\.\w+$/.exec(relative)?.[0] ?? ''];
    const file =
      type && !relative.startsWith('..') && !relative.includes(`..${sep}`)
        ? await load(join(dist, 'web-assets', relative))
        : null;
    if (!file) {
      // A build replaced the files: forget what was looked up.
      files.delete(join(dist, 'web-assets', relative));
      ctx.status = 404;
      ctx.body = { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' };
      return;
    }
    // File names carry a hash of their content (Vite), so they never change.
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.etag = file.etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = type;
    ctx.body = file.body;
  };
}

// Serving fixed documents outside the API (the docs page and its bundles, the
// contract, the emoji data): GET and HEAD only, an entity tag computed once per
// body, and 304 for a client that already holds the same body.
import { createHash } from 'node:crypto';
import type Koa from 'koa';

/** A document's bytes and its entity tag. */
export interface StaticBody {
  body: Buffer;
  etag: string;
}

/** `body` with its entity tag (a strong tag from its SHA-256). */
export function staticBody(body: Buffer): StaticBody {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Answers 405 with `Allow: GET, HEAD` to any other method; says whether it did. */
export function refusedUnlessRead(ctx: Koa.Context): boolean {
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return false;
  ctx.status = 405;
  ctx.set('Allow', 'GET, HEAD');
  ctx.body = { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'HEAD'] };
  return true;
}

/** Answers with `document` as `type` and `headers`, or 304 when the client's copy is current. */
export function sendStatic(
  ctx: Koa.Context,
  document: StaticBody,
  type: string,
  headers: Record<string, string>,
): void {
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  ctx.etag = document.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = document.body;
}

/**
 * Starts a server-made HTML page (`operation` names it in logs and metrics):
 * kept by no cache, shown in no frame, with no referrer. A method other than
 * GET, HEAD or POST gets 405 with the page `refusal`; says whether it did.
 */
export function refusedHtmlPage(ctx: Koa.Context, operation: string, refusal: string): boolean {
  ctx.state.operation = operation;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.type = 'text/html; charset=utf-8';
  if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'POST') return false;
  ctx.status = 405;
  ctx.set('Allow', 'GET, HEAD, POST');
  ctx.body = refusal;
  return true;
}

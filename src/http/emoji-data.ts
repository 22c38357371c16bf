// Serves the server's Unicode emoji data at the address the register response
// names in `server_emoji_data_url`, outside /api/v1 and without credentials:
// one JSON object whose `code_to_names` maps each emoji code to its names, the
// canonical name first, as Zulip's emoji_api.json does. Built once from the
// emoji table and kept in memory.
import { createHash } from 'node:crypto';
import type Koa from 'koa';
import { EMOJI_DATA_PATH, emojiDataDocument } from '../lib/emoji/emoji-data';

/** Koa middleware answering GET and HEAD for the emoji data; other paths pass through. */
export function emojiDataServing(): Koa.Middleware {
  let body: Buffer | undefined;
  let etag = '';
  return async (ctx, next) => {
    if (ctx.path !== EMOJI_DATA_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET', 'HEAD'] };
      return;
    }
    if (body === undefined) {
      body = Buffer.from(JSON.stringify(emojiDataDocument()));
      etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    }
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.etag = etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = body;
  };
}

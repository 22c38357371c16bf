// Serves the server's Unicode emoji data at the address the register response
// names in `server_emoji_data_url`, outside /api/v1 and without credentials:
// one JSON object whose `code_to_names` maps each emoji code to its names, the
// canonical name first, as Zulip's emoji_api.json does. Built once from the
// emoji table and kept in memory.
import type Koa from 'koa';
import { EMOJI_DATA_PATH, emojiDataDocument } from '../lib/emoji/emoji-data';
import { refusedUnlessRead, sendStatic, staticBody, type StaticBody } from './assets';

/** Koa middleware answering GET and HEAD for the emoji data; other paths pass through. */
export function emojiDataServing(): Koa.Middleware {
  let document: StaticBody | undefined;
  return async (ctx, next) => {
    if (ctx.path !== EMOJI_DATA_PATH) return next();
    if (refusedUnlessRead(ctx)) return;
    document ??= staticBody(Buffer.from(JSON.stringify(emojiDataDocument())));
    sendStatic(ctx, document, 'application/json; charset=utf-8', {
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'public, max-age=86400',
    });
  };
}

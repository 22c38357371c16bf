// The page unsubscribe links of notification and digest emails lead to,
// outside /api/v1 and without credentials: GET (or POST)
// /accounts/unsubscribe/<kind>/<token> turns the emails off and says so in a
// small HTML page, as Zulip's link does; a link that is not valid gets a page
// saying that.
import type Koa from 'koa';
import { doUnsubscribe } from '../actions/notifications/unsubscribe';
import { escapeHtml } from '../lib/mail/mailer';
import type { Services } from '../services';
import { refusedHtmlPage } from './assets';

const unsubscribePath = /^\/accounts\/unsubscribe\/([a-z_]{1,40})\/([A-Za-z0-9_-]{1,100})\/?$/;

/** A whole page around `body`. */
function page(title: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Koa middleware answering /accounts/unsubscribe/<kind>/<token>; other paths pass through. */
export function unsubscribePages(services: Services): Koa.Middleware {
  return async (ctx, next) => {
    const match = unsubscribePath.exec(ctx.path);
    if (!match) return next();
    if (
      refusedHtmlPage(
        ctx,
        'unsubscribe',
        page('Method not allowed', '<p>Open this link in a browser.</p>'),
      )
    )
      return;
    // A HEAD request (a link checker) changes nothing.
    if (ctx.method === 'HEAD') {
      ctx.body = page('Unsubscribe', '<p>Open this link to unsubscribe.</p>');
      return;
    }
    const done = await doUnsubscribe(services, match[1], match[2]);
    if (!done) {
      ctx.status = 404;
      ctx.body = page(
        'Unknown unsubscribe link',
        '<p>This link is not valid. Change which emails you get in your notification settings.</p>',
      );
      return;
    }
    ctx.body = page(
      'Unsubscribed',
      `<p>You will no longer get ${escapeHtml(done.what)} from ${escapeHtml(done.realmName)}. ` +
        'You can turn them back on in your notification settings.</p>',
    );
  };
}

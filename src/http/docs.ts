// Serves the contract rendered for people, at GET /api/docs, without
// credentials: a page that renders /openapi.json with Redoc, and Redoc's
// standalone bundle from the `redoc` package, served by this server. Nothing
// loads from elsewhere: no CDN, no web fonts, and the page's
// Content-Security-Policy lets the browser fetch from this server alone (it
// keeps out the one image Redoc itself would fetch from outside, the logo of
// its "API docs by Redocly" line).
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type Koa from 'koa';
import { refusedUnlessRead, sendStatic, staticBody, type StaticBody } from './assets';

/** The address of the rendered docs. */
export const DOCS_PATH = '/api/docs';

/** The folder of Redoc's prebuilt bundles. */
const bundles = join(dirname(require.resolve('redoc/package.json')), 'bundles');

/** Redoc's options, as attributes of its element (https://redocly.com/docs/redoc/config). */
const redocOptions: Record<string, string> = {
  'spec-url': '/openapi.json',
  'expand-responses': '200',
  'required-props-first': 'true',
  'json-sample-expand-level': '3',
};

const page = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Chat server REST API</title>
    <link rel="icon" href="data:,">
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <noscript>These docs need JavaScript. The contract itself is at <a href="/openapi.yaml">/openapi.yaml</a>.</noscript>
    <redoc ${Object.entries(redocOptions)
      .map(([name, value]) => `${name}="${value}"`)
      .join(' ')}></redoc>
    <script src="${DOCS_PATH}/redoc.standalone.js"></script>
  </body>
</html>
`;

/**
 * What the page may load: scripts, data and images from this server; the
 * styles Redoc writes into the page; its search worker, started from a blob.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  'worker-src blob:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** One served file: where it comes from, its type, and how long browsers keep it. */
interface Asset {
  type: string;
  load: () => Promise<Buffer>;
  cache: string;
  headers?: Record<string, string>;
}

const assets: Record<string, Asset> = {
  [DOCS_PATH]: {
    type: 'text/html; charset=utf-8',
    load: async () => Buffer.from(page),
    cache: 'no-cache',
    headers: { 'Content-Security-Policy': contentSecurityPolicy },
  },
  [`${DOCS_PATH}/redoc.standalone.js`]: {
    type: 'text/javascript; charset=utf-8',
    load: () => readFile(join(bundles, 'redoc.standalone.js')),
    cache: 'public, max-age=3600',
  },
  // The bundle's first line names this file for its licenses.
  [`${DOCS_PATH}/redoc.standalone.js.LICENSE.txt`]: {
    type: 'text/plain; charset=utf-8',
    load: () => readFile(join(bundles, 'redoc.standalone.js.LICENSE.txt')),
    cache: 'public, max-age=3600',
  },
  // Named by the bundle's last line; browsers fetch it only for their developer tools.
  [`${DOCS_PATH}/redoc.standalone.js.map`]: {
    type: 'application/json; charset=utf-8',
    load: () => readFile(join(bundles, 'redoc.standalone.js.map')),
    cache: 'public, max-age=3600',
  },
};

/**
 * Koa middleware answering GET and HEAD for /api/docs (also with a trailing
 * slash) and the files the page loads; other paths pass through, and other
 * paths under /api/docs/ are 404s.
 */
export function docsServing(): Koa.Middleware {
  const loaded = new Map<string, Promise<StaticBody>>();
  const load = (path: string, asset: Asset): Promise<StaticBody> => {
    let entry = loaded.get(path);
    if (!entry) {
      entry = asset.load().then(staticBody);
      entry.catch(() => loaded.delete(path));
      loaded.set(path, entry);
    }
    return entry;
  };
  return async (ctx, next) => {
    if (ctx.path !== DOCS_PATH && !ctx.path.startsWith(`${DOCS_PATH}/`)) return next();
    const path = ctx.path === `${DOCS_PATH}/` ? DOCS_PATH : ctx.path;
    const asset = assets[path];
    if (!asset) {
      ctx.status = 404;
      ctx.body = { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' };
      return;
    }
    if (refusedUnlessRead(ctx)) return;
    sendStatic(ctx, await load(path, asset), asset.type, {
      ...asset.headers,
      'Cache-Control': asset.cache,
      'X-Content-Type-Options': 'nosniff',
    });
  };
}

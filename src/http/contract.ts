// Serves the contract itself, outside /api/v1 and without credentials:
// GET /openapi.yaml and GET /openapi.json, for client generators and
// validating clients. Both name this server (EXTERNAL_URL + /api/v1) in
// `servers`, so a client generated from them talks to it. Each is built once,
// on first request, and kept in memory.
import { readFile } from 'node:fs/promises';
import type Koa from 'koa';
import { refusedUnlessRead, sendStatic, staticBody, type StaticBody } from './assets';
import { specPath } from './spec';

/** One served form of the contract. */
interface Served extends StaticBody {
  type: string;
}

async function build(externalUrl: string): Promise<Record<string, Served>> {
  // Loaded at the first request for the contract: most processes serve none.
  const { parseDocument } = await import('yaml');
  const doc = parseDocument(await readFile(specPath, 'utf8'));
  doc.set(
    'servers',
    doc.createNode([{ url: `${externalUrl}/api/v1`, description: 'This server.' }]),
  );
  const served = (type: string, text: string): Served => {
    return { type, ...staticBody(Buffer.from(text)) };
  };
  return {
    '/openapi.yaml': served(
      'application/yaml; charset=utf-8',
      doc.toString({ lineWidth: 0, singleQuote: true }),
    ),
    '/openapi.json': served(
      'application/json; charset=utf-8',
      JSON.stringify(doc.toJSON(), null, 2),
    ),
  };
}

/** Koa middleware answering GET and HEAD for /openapi.yaml and /openapi.json; other paths pass through. */
export function contractServing(externalUrl: string): Koa.Middleware {
  let documents: Promise<Record<string, Served>> | undefined;
  return async (ctx, next) => {
    if (ctx.path !== '/openapi.yaml' && ctx.path !== '/openapi.json') return next();
    if (refusedUnlessRead(ctx)) return;
    documents ??= build(externalUrl).catch((error: unknown) => {
      documents = undefined;
      throw error;
    });
    const document = (await documents)[ctx.path];
    sendStatic(ctx, document, document.type, {
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'no-cache',
    });
  };
}

// Where a request comes from, read from its headers as Koa reads them
// (ctx.host, ctx.ip), for the lean path, which has no Koa context, and for the
// routes, where Koa's getters would parse the headers anew on every read.
import type { IncomingMessage } from 'node:http';

/** The first of a header's comma-separated values, trimmed. */
function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  return value ? value.split(',', 1)[0].trim() : undefined;
}

/** The request's host as Koa reads it: X-Forwarded-Host from a trusted proxy, else Host. */
export function hostOf(req: IncomingMessage, trustProxy: boolean): string {
  let host =
    (trustProxy && firstValue(req.headers['x-forwarded-host'])) || firstValue(req.headers.host);
  if (!host) return '';
  // A Host holding userinfo ("user@host") is invalid; the URL parser takes the host out.
  if (host.includes('@')) {
    try {
      host = new URL(`http://${host}`).host;
    } catch {
      return '';
    }
  }
  return host;
}

/** The client's address as Koa reads it: the first X-Forwarded-For entry from a trusted proxy, else the socket's. */
export function ipOf(req: IncomingMessage, trustProxy: boolean): string {
  return (
    (trustProxy && firstValue(req.headers['x-forwarded-for'])) || req.socket.remoteAddress || ''
  );
}

// Temporary download URLs: /user_uploads/temporary/<token>/<name> serves a
// file without credentials for a short time. The token is the file's path id,
// the time it was made and a signature of both with a secret of the server,
// hex-encoded: it needs no storage and cannot be altered or extended.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The name of the server secret that signs temporary URLs. */
export const UPLOAD_URL_SECRET = 'temporary-upload-urls';

/** How long a temporary URL serves its file, in seconds. */
export const TEMPORARY_URL_VALIDITY_SECONDS = 60;

function signature(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(`user-uploads:${payload}`).digest('base64url');
}

/** The temporary URL of `pathId`, made now with `secret`. */
export function temporaryUrl(secret: Buffer, pathId: string, now = Date.now()): string {
  const payload = `${pathId}:${Math.floor(now / 1000).toString(36)}`;
  const token = Buffer.from(`${payload}:${signature(secret, payload)}`)
    .toString('hex')
    .toUpperCase();
  return `/user_uploads/temporary/${token}/${pathId.split('/').pop()}`;
}

/** The path id a token was made for, or undefined when it is malformed, forged or expired. */
export function pathIdOfToken(secret: Buffer, token: string, now = Date.now()): string | undefined {
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(token)) return undefined;
  const text = Buffer.from(token, 'hex').toString('utf8');
  const match = /^(.+):([0-9a-z]+):([\w-]+)$/.exec(text);
  if (!match) return undefined;
  const [, pathId, made, signed] = match;
  const expected = Buffer.from(signature(secret, `${pathId}:${made}`));
  const given = Buffer.from(signed);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const age = Math.floor(now / 1000) - parseInt(made, 36);
  if (age < 0 || age > TEMPORARY_URL_VALIDITY_SECONDS) return undefined;
  return pathId;
}

// Browser sessions of the web client: the cookie carries a random secret, the
// database keeps its SHA-256 only, with the CSRF token the page must repeat.
import { createHash } from 'node:crypto';
import type { Session } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';

/** How long a session lasts from sign-in (two weeks, as Zulip's). */
export const SESSION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;

/** The stored form of a session cookie's secret. */
export function sessionTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The live session a cookie's secret names at `now`, or null. */
export async function sessionByToken(tx: Db, token: string, now: Date): Promise<Session | null> {
  const row = await tx.session.findUnique({ where: { tokenHash: sessionTokenHash(token) } });
  return row && row.expiresAt > now ? row : null;
}

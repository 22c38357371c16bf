// The lock on password logins: after RATE_LIMIT_AUTH_ATTEMPTS (five) failed
// logins of one username within 30 minutes, logins with that username are
// refused for 30 minutes, whether or not such a user exists. Kept in the
// database, so that every server process and the admin command see it.
import type { Db } from '../../db/client';
import { rateLimited } from '../../errors';

/** How long failures are counted together, and how long a lock lasts. */
export const LOGIN_LOCK_MS = 30 * 60 * 1000;

/** The key a username is counted under: the username as tried, lowercased. */
export function loginKey(username: string): string {
  return username.toLowerCase();
}

/** Throws RATE_LIMIT_HIT (with the seconds left) while `username` is locked at `now`. */
export async function checkLoginLock(db: Db, username: string, now: Date): Promise<void> {
  const row = await db.loginFailure.findUnique({ where: { username: loginKey(username) } });
  if (row?.lockedUntil && row.lockedUntil > now)
    throw rateLimited((row.lockedUntil.getTime() - now.getTime()) / 1000);
}

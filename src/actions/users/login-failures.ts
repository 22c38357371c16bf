// Counting failed password logins, and clearing a lock (see lib/users/login-lock.ts).
import type { Database } from '../../db/client';
import { LOGIN_LOCK_MS, loginKey } from '../../lib/users/login-lock';

/** Counts a failed login of `username` at `now`; the `limit`th failure of a window locks it. */
export async function doRecordLoginFailure(
  db: Database,
  username: string,
  limit: number,
  now: Date,
): Promise<void> {
  const key = loginKey(username);
  await db.write(async (tx) => {
    const row = await tx.loginFailure.findUnique({ where: { username: key } });
    const fresh = !row || now.getTime() - row.firstFailure.getTime() >= LOGIN_LOCK_MS;
    const failures = fresh ? 1 : row.failures + 1;
    const lockedUntil =
      failures >= limit ? new Date(now.getTime() + LOGIN_LOCK_MS) : fresh ? null : row.lockedUntil;
    const data = { failures, firstFailure: fresh ? now : row.firstFailure, lockedUntil };
    await tx.loginFailure.upsert({
      where: { username: key },
      create: { username: key, ...data },
      update: data,
    });
  });
}

/** Forgets the failed logins of `username` (after a successful login, or by an administrator); whether there were any. */
export async function doClearLoginFailures(db: Database, username: string): Promise<boolean> {
  const { count } = await db.write((tx) =>
    tx.loginFailure.deleteMany({ where: { username: loginKey(username) } }),
  );
  return count > 0;
}

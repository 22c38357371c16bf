// Starting and ending browser sessions of the web client (see lib/users/sessions.ts).
import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/client';
import { SESSION_LIFETIME_MS, sessionTokenHash } from '../../lib/users/sessions';

/** A new session: the cookie's secret and the page's CSRF token. */
export interface NewSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Signs `userId` in at `now`; also drops the sessions of anyone that have expired. */
export async function doCreateSession(
  db: Database,
  userId: number,
  now: Date,
): Promise<NewSession> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await db.write(async (tx) => {
    await tx.session.deleteMany({ where: { expiresAt: { lte: now } } });
    await tx.session.create({
      data: { tokenHash: sessionTokenHash(token), userId, csrfToken, createdAt: now, expiresAt },
    });
  });
  return { token, csrfToken, expiresAt };
}

/** Ends the session a cookie's secret names, if it exists. */
export async function doDeleteSession(db: Database, token: string): Promise<void> {
  await db.write((tx) => tx.session.deleteMany({ where: { tokenHash: sessionTokenHash(token) } }));
}

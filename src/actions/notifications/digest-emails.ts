// Weekly digest emails: on its organization's digest weekday, each person who
// has been away for DIGEST_CUTOFF_DAYS, keeps `enable_digest_emails` on, and
// had no digest in the past week gets one, when there is something to tell.
// A person is claimed by recording the digest before it is sent, so that of
// several processes only one sends it.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { executeRows, queryRows } from '../../db/client';
import { sendOrLog } from '../../lib/mail/mailer';
import {
  DIGEST_CUTOFF_DAYS,
  DIGEST_PERIOD_DAYS,
  digestContent,
  digestEmail,
} from '../../lib/notifications/digest-email';
import { UNSUBSCRIBE_SECRET, unsubscribeUrl } from '../../lib/notifications/unsubscribe';
import { realmUrl } from '../../lib/realm/realms';
import type { Services } from '../../services';
import { doGetServerSecret } from '../users/server-secrets';

const DAY_MS = 86_400_000;
/** People looked at by one run at most; the rest wait for the next run. */
const USERS_PER_RUN = 100;

/** The digest weekday of `now`, numbered as Zulip's `digest_weekday`: 0 Monday .. 6 Sunday. */
export function digestWeekdayOf(now: Date): number {
  return (now.getUTCDay() + 6) % 7;
}

/** Sends the digests due at `now`; answers how many were sent. */
export async function doSendDigestEmails(services: Services, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - DIGEST_CUTOFF_DAYS * DAY_MS);
  // A little under a week, so that the next digest weekday always qualifies.
  const lastWeek = new Date(now.getTime() - (DIGEST_PERIOD_DAYS - 1) * DAY_MS);
  const due = await services.db.read((db) =>
    queryRows<{ id: number | bigint }>(
      db,
      Prisma.sql`
      SELECT u."id" AS "id" FROM "User" u
      JOIN "Realm" r ON r."id" = u."realmId"
      LEFT JOIN "UserPresence" p ON p."userId" = u."id"
      WHERE u."isActive" = true AND u."isBot" = false AND u."enableDigestEmails" = true
        AND u."dateJoined" <= ${cutoff}
        AND r."digestEmailsEnabled" = true AND r."deactivated" = false
        AND r."digestWeekday" = ${digestWeekdayOf(now)}
        AND (p."lastActiveTime" IS NULL OR p."lastActiveTime" <= ${cutoff})
        AND (p."lastConnectedTime" IS NULL OR p."lastConnectedTime" <= ${cutoff})
        AND NOT EXISTS (
          SELECT 1 FROM "DigestEmail" d WHERE d."userId" = u."id" AND d."sentAt" > ${lastWeek})
      ORDER BY u."id"
      LIMIT ${USERS_PER_RUN}`,
    ),
  );
  let sent = 0;
  for (const row of due) {
    const userId = Number(row.id);
    const claimed = await services.db.write(async (tx) => {
      const renewed = await tx.digestEmail.updateMany({
        where: { userId, sentAt: { lte: lastWeek } },
        data: { sentAt: now },
      });
      if (renewed.count > 0) return true;
      const inserted = await executeRows(
        tx,
        Prisma.sql`INSERT INTO "DigestEmail" ("userId", "sentAt") VALUES (${userId}, ${now}) ON CONFLICT ("userId") DO NOTHING`,
      );
      return inserted > 0;
    });
    if (!claimed) continue;
    const user = await services.db.read((db) =>
      db.user.findUnique({ where: { id: userId }, include: { realm: true } }),
    );
    if (!user) continue;
    const base = realmUrl(user.realm, services.config.externalUrl);
    const content = await services.db.read((db) => digestContent(db, user, now, base));
    const secret = await doGetServerSecret(services, UNSUBSCRIBE_SECRET);
    const mail = digestEmail(
      {
        email: user.email,
        fullName: user.fullName,
        realmName: user.realm.name,
        realmUrl: base,
        showContent:
          user.realm.messageContentAllowedInEmailNotifications &&
          user.messageContentInEmailNotifications,
        unsubscribeUrl: unsubscribeUrl(base, secret, 'digest', user.id),
      },
      content,
    );
    if (!mail) continue;
    await sendOrLog(services.mail, services.log, mail, 'digest email refused', { user_id: userId });
    sent += 1;
  }
  return sent;
}

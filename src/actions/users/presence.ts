// Recording that a user is connected, and active or idle. Writes are
// throttled; each one bumps the organization's presence sequence, and a user
// appearing or coming back online (from offline or idle) is announced with a
// presence event.
import { Prisma, type Realm, type User } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import {
  legacyPresence,
  modernPresence,
  presenceStatusAt,
  SIMPLIFIED_PRESENCE_CAPABILITY,
} from '../../lib/users/presence';
import { apiEmail, realmHost } from '../../lib/users/users';
import type { EventBody } from '../../events/queues';
import type { Services } from '../../services';

/** Seconds within which a repeated report changes nothing. */
const THROTTLE_SECONDS = 55;

/** What a report needs of the user's current presence row. */
type Current = { lastActiveTime: Date | null; lastConnectedTime: Date | null } | undefined;

/** The user's presence row, on one prepared statement. */
async function currentPresence(db: Db, userId: number): Promise<Current> {
  const [row] = await queryRows<NonNullable<Current>>(
    db,
    Prisma.sql`SELECT "lastActiveTime", "lastConnectedTime" FROM "UserPresence" WHERE "userId" = ${userId}`,
  );
  return row;
}

/** Whether a report of `status` at `now` changes nothing: the last one is recent enough. */
function throttled(current: Current, status: 'active' | 'idle', now: Date): boolean {
  const recent = now.getTime() - THROTTLE_SECONDS * 1000;
  const wasActive = current?.lastActiveTime != null && current.lastActiveTime.getTime() > recent;
  return (
    current?.lastConnectedTime != null &&
    current.lastConnectedTime.getTime() > recent &&
    (status === 'idle' || wasActive)
  );
}

/**
 * Stores the report under the organization's next presence sequence number
 * (given out under the organization row's lock, so that numbers become
 * visible in order: see lib/presence-cache.ts); answers the stored times.
 */
async function storePresence(tx: Db, user: User, status: 'active' | 'idle', now: Date) {
  const [{ presenceLastUpdateId }] = await queryRows<{ presenceLastUpdateId: number | bigint }>(
    tx,
    Prisma.sql`UPDATE "Realm" SET "presenceLastUpdateId" = "presenceLastUpdateId" + 1 WHERE "id" = ${user.realmId} RETURNING "presenceLastUpdateId"`,
  );
  const active = status === 'active' ? now : null;
  const [row] = await queryRows<{ lastActiveTime: Date | null; lastConnectedTime: Date | null }>(
    tx,
    Prisma.sql`INSERT INTO "UserPresence" ("userId", "realmId", "lastActiveTime", "lastConnectedTime", "lastUpdateId")
      VALUES (${user.id}, ${user.realmId}, ${active}, ${now}, ${Number(presenceLastUpdateId)})
      ON CONFLICT ("userId") DO UPDATE SET "lastConnectedTime" = excluded."lastConnectedTime",
        "lastUpdateId" = excluded."lastUpdateId",
        "lastActiveTime" = COALESCE(excluded."lastActiveTime", "UserPresence"."lastActiveTime")
      RETURNING "lastActiveTime", "lastConnectedTime"`,
  );
  return { ...row, user };
}

/**
 * Records `status` for `user`; returns nothing (readers use readPresences).
 * A report within the throttle of the last one costs one read.
 */
export async function doUpdatePresence(
  services: Services,
  realm: Realm,
  user: User,
  status: 'active' | 'idle',
  now = new Date(),
): Promise<void> {
  if (!user.presenceEnabled) return; // invisible users leave no trace
  const before = await services.db.read((db) => currentPresence(db, user.id));
  if (throttled(before, status, now)) return;
  await services.db.write(async (tx, onCommit) => {
    const current = await currentPresence(tx, user.id);
    if (throttled(current, status, now)) return;
    // Coming back online: an active report from a user whose last reports
    // read offline or idle. A user reporting active every minute is announced once.
    const comesBack =
      current !== undefined &&
      status === 'active' &&
      presenceStatusAt({ ...current, user }, now) !== 'active';
    const row = await storePresence(tx, user, status, now);
    if (current && !comesBack) return;
    // As Zulip does, an organization with more active users than the limit
    // gets no such event: one per user coming online, to every user, grows
    // with the square of its size. Its clients see the change at their next
    // regular presence request.
    const limit = services.config.presenceEventsMaxUsers;
    const active = await tx.user.findMany({
      where: { realmId: user.realmId, isActive: true },
      select: { id: true, isBot: true },
      take: limit + 1,
    });
    if (active.length > limit) return;
    const everyone = active.filter((u) => !u.isBot);
    // Clients with the simplified_presence_events capability (feature level
    // 419) get the modern format, keyed by user ID; others the legacy one.
    const modern: EventBody = {
      type: 'presence',
      presences: { [String(user.id)]: modernPresence(row) },
    };
    const legacy: EventBody = {
      type: 'presence',
      user_id: user.id,
      email: apiEmail(user, realmHost(realm, services.config.externalUrl)),
      server_timestamp: now.getTime() / 1000,
      presence: { website: legacyPresence(row).website },
    };
    onCommit(() =>
      services.bus.publish(
        modern,
        everyone.map((u) => u.id),
        { capability: SIMPLIFIED_PRESENCE_CAPABILITY, event: legacy },
      ),
    );
  });
}

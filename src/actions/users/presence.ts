// Recording that a user is connected, and active or idle. Writes are
// throttled; each one bumps the organization's presence sequence, and a user
// appearing or coming back online (from offline or idle) is announced with a
// presence event.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
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

/** Records `status` for `user`; returns nothing (readers use readPresences). */
export async function doUpdatePresence(
  services: Services,
  realm: Realm,
  user: User,
  status: 'active' | 'idle',
  now = new Date(),
): Promise<void> {
  if (!user.presenceEnabled) return; // invisible users leave no trace
  const recent = new Date(now.getTime() - THROTTLE_SECONDS * 1000);
  await services.db.write(async (tx, onCommit) => {
    const current = await tx.userPresence.findUnique({ where: { userId: user.id } });
    const wasActive = current?.lastActiveTime != null && current.lastActiveTime > recent;
    // Coming back online: an active report from a user whose last reports
    // read offline or idle. A user reporting active every minute is announced once.
    const comesBack =
      current !== null &&
      status === 'active' &&
      presenceStatusAt({ ...current, user }, now) !== 'active';
    if (
      current &&
      current.lastConnectedTime &&
      current.lastConnectedTime > recent &&
      (status === 'idle' || wasActive)
    )
      return;
    const { presenceLastUpdateId } = await tx.realm.update({
      where: { id: user.realmId },
      data: { presenceLastUpdateId: { increment: 1 } },
      select: { presenceLastUpdateId: true },
    });
    const data = {
      lastConnectedTime: now,
      lastUpdateId: presenceLastUpdateId,
      ...(status === 'active' ? { lastActiveTime: now } : {}),
    };
    const row = await tx.userPresence.upsert({
      where: { userId: user.id },
      create: {
        userId: user.id,
        realmId: user.realmId,
        lastActiveTime: status === 'active' ? now : null,
        ...data,
      },
      update: data,
      include: { user: true },
    });
    if (current && !comesBack) return;
    const everyone = await tx.user.findMany({
      where: { realmId: user.realmId, isActive: true, isBot: false },
      select: { id: true },
    });
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

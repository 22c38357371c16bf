// Who hears about a channel: the users that events about a channel, its
// settings or its subscribers go to. These mirror the access rules of
// stream-access.ts, computed for all users at once.
import type { Stream } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { Role } from '../constants';
import { membersOfGroups } from '../groups/permissions';

/** Active users of the realm, with their roles. */
async function activeUsers(db: Db, realmId: number): Promise<{ id: number; role: number }[]> {
  return db.user.findMany({ where: { realmId, isActive: true }, select: { id: true, role: true } });
}

/** Active subscribers of a channel. */
export async function activeSubscriberIds(db: Db, streamId: number): Promise<number[]> {
  const rows = await db.subscription.findMany({
    where: { streamId, active: true, user: { isActive: true } },
    select: { userId: true },
  });
  return rows.map((r) => r.userId);
}

/** Everyone who may see the channel's name and settings (metadata access). */
export async function metadataAccessUserIds(db: Db, stream: Stream): Promise<number[]> {
  const users = await activeUsers(db, stream.realmId);
  if (stream.isWebPublic) return users.map((u) => u.id);
  const subscribers = new Set(await activeSubscriberIds(db, stream.id));
  if (!stream.inviteOnly)
    return users.filter((u) => u.role < Role.GUEST || subscribers.has(u.id)).map((u) => u.id);
  const granted = await membersOfGroups(db, [
    stream.canAdministerChannelGroupId,
    stream.canAddSubscribersGroupId,
    stream.canSubscribeGroupId,
  ]);
  return users
    .filter(
      (u) =>
        subscribers.has(u.id) ||
        u.role <= Role.ADMINISTRATOR ||
        (u.role < Role.GUEST && granted.has(u.id)),
    )
    .map((u) => u.id);
}

/** Everyone who may see the channel's subscribers, and so gets peer_add / peer_remove events. */
export async function subscriberPeerIds(db: Db, stream: Stream): Promise<number[]> {
  return metadataAccessUserIds(db, stream);
}

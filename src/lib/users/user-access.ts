// Restricted user visibility, after Zulip's can_access_all_users_group: when
// the organization's setting leaves guests out (it may be role:everyone or
// role:members), a guest sees only themselves, every bot, the active users
// subscribed to a channel they are subscribed to, and the people they share a
// direct message conversation with. Everyone else is an "Unknown user" to them.
import { Prisma, type Realm, type User } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role, SystemGroup } from '../constants';
import { membersOfGroups, userHoldsPermission } from '../groups/permissions';

/** The name Zulip shows for a user the viewer may not see. */
export const UNKNOWN_USER_NAME = 'Unknown user';

/** The avatar Zulip shows for a user the viewer may not see. */
export const UNKNOWN_USER_AVATAR = '/static/images/unknown-user-avatar.png';

/** Whether the organization hides some users from guests (its setting is not role:everyone). */
export async function userAccessRestricted(
  db: Db,
  realm: Pick<Realm, 'canAccessAllUsersGroupId'>,
): Promise<boolean> {
  const group = await db.userGroup.findUnique({
    where: { id: realm.canAccessAllUsersGroupId },
    select: { name: true },
  });
  return group?.name !== SystemGroup.EVERYONE;
}

/** Whether `viewer` may see every user of the organization: non-guests always may. */
export async function canAccessAllUsers(
  db: Db,
  realm: Pick<Realm, 'canAccessAllUsersGroupId'>,
  viewer: Pick<User, 'id' | 'role' | 'isActive'>,
): Promise<boolean> {
  if (viewer.role !== Role.GUEST) return true;
  return userHoldsPermission(db, viewer, realm.canAccessAllUsersGroupId);
}

/**
 * The users `userId` shares something with, `userId` included: the active
 * subscribers of the channels they are subscribed to, and every participant
 * (deactivated ones too) of the direct message conversations they are in.
 */
export async function usersSharingWith(
  db: Db,
  realmId: number,
  userId: number,
): Promise<Set<number>> {
  const subscribers = await queryRows<{ userId: number | bigint }>(
    db,
    Prisma.sql`
    SELECT DISTINCT other."userId" AS "userId"
    FROM "Subscription" mine
    JOIN "Subscription" other ON other."streamId" = mine."streamId" AND other."active" = true
    JOIN "User" u ON u."id" = other."userId" AND u."isActive" = true
    WHERE mine."userId" = ${userId} AND mine."active" = true`,
  );
  const conversations = await queryRows<{ dmKey: string }>(
    db,
    Prisma.sql`
    SELECT DISTINCT "dmKey" AS "dmKey" FROM "Message"
    WHERE "realmId" = ${realmId} AND "streamId" IS NULL AND "dmKey" IS NOT NULL
      AND (',' || "dmKey" || ',') LIKE ${`%,${userId},%`}`,
  );
  const ids = new Set<number>([userId]);
  for (const row of subscribers) ids.add(Number(row.userId));
  for (const row of conversations) for (const id of row.dmKey.split(',')) ids.add(Number(id));
  return ids;
}

/**
 * The humans `viewer` may see, themselves included, or null when they may see
 * everyone. Bots are not listed: every bot is visible to everyone.
 */
export async function accessibleUserIds(
  db: Db,
  realm: Pick<Realm, 'id' | 'canAccessAllUsersGroupId'>,
  viewer: Pick<User, 'id' | 'role' | 'isActive'>,
): Promise<Set<number> | null> {
  if (await canAccessAllUsers(db, realm, viewer)) return null;
  return usersSharingWith(db, realm.id, viewer.id);
}

/** Whether `viewer` may see `target`. */
export async function canAccessUser(
  db: Db,
  viewer: Pick<User, 'id' | 'role' | 'isActive' | 'realmId'>,
  target: Pick<User, 'id' | 'isBot'>,
): Promise<boolean> {
  if (viewer.id === target.id || target.isBot || viewer.role !== Role.GUEST) return true;
  const realm = await db.realm.findUniqueOrThrow({ where: { id: viewer.realmId } });
  const accessible = await accessibleUserIds(db, realm, viewer);
  return accessible === null || accessible.has(target.id);
}

/** Throws Zulip's refusal when `viewer` may not see `target`. */
export async function checkCanAccessUser(
  db: Db,
  viewer: Pick<User, 'id' | 'role' | 'isActive' | 'realmId'>,
  target: Pick<User, 'id' | 'isBot'>,
): Promise<void> {
  if (!(await canAccessUser(db, viewer, target))) throw new ApiError('Insufficient permission');
}

/**
 * The active users who may see `target`: everyone, unless the organization
 * restricts guests and `target` is a human; then the non-guests, `target`,
 * and the guests who share a channel or conversation with them.
 */
export async function userIdsWhoCanAccess(
  db: Db,
  target: Pick<User, 'id' | 'isBot' | 'realmId'>,
): Promise<number[]> {
  const realm = await db.realm.findUniqueOrThrow({ where: { id: target.realmId } });
  const active = await db.user.findMany({
    where: { realmId: target.realmId, isActive: true },
    select: { id: true, role: true },
    orderBy: { id: 'asc' },
  });
  if (target.isBot || !(await userAccessRestricted(db, realm))) return active.map((u) => u.id);
  const sharing = await usersSharingWith(db, realm.id, target.id);
  const allowed = await membersOfGroups(db, [realm.canAccessAllUsersGroupId]);
  return active
    .filter((u) => u.role !== Role.GUEST || allowed.has(u.id) || sharing.has(u.id))
    .map((u) => u.id);
}

/**
 * The active users who may not see `target` (their complement in
 * userIdsWhoCanAccess): the guests a restricted organization hides it from.
 */
export async function userIdsWhoCannotAccess(
  db: Db,
  target: Pick<User, 'id' | 'isBot' | 'realmId'>,
): Promise<number[]> {
  const can = new Set(await userIdsWhoCanAccess(db, target));
  const active = await db.user.findMany({
    where: { realmId: target.realmId, isActive: true },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return active.map((u) => u.id).filter((id) => !can.has(id));
}

/**
 * The user object a viewer gets for a user they may not see (Zulip's
 * backward-compatible placeholder for clients without `user_list_incomplete`).
 */
export function unknownUser(userId: number, host: string) {
  return {
    user_id: userId,
    delivery_email: null,
    email: `user${userId}@${host}`,
    full_name: UNKNOWN_USER_NAME,
    date_joined: new Date(0).toISOString(),
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_bot: false,
    bot_type: null,
    role: Role.MEMBER as 400,
    timezone: '',
    avatar_url: UNKNOWN_USER_AVATAR as string | null,
    avatar_version: 1,
    profile_data: {},
  };
}

/**
 * What each guest among `userIds` that a restricted organization limits may
 * see now (see accessibleUserIds): taken before a change, compared after it.
 */
export async function restrictedViews(
  db: Db,
  realmId: number,
  userIds: Iterable<number>,
): Promise<Map<number, Set<number>>> {
  const views = new Map<number, Set<number>>();
  const realm = await db.realm.findUniqueOrThrow({ where: { id: realmId } });
  if (!(await userAccessRestricted(db, realm))) return views;
  const guests = await db.user.findMany({
    where: { id: { in: [...new Set(userIds)] }, realmId, role: Role.GUEST, isActive: true },
    select: { id: true },
  });
  if (guests.length === 0) return views;
  const allowed = await membersOfGroups(db, [realm.canAccessAllUsersGroupId]);
  for (const guest of guests)
    if (!allowed.has(guest.id)) views.set(guest.id, await usersSharingWith(db, realmId, guest.id));
  return views;
}

/** Refuses, as Zulip does, a direct message from a restricted guest to users hidden from them. */
export async function checkSenderCanAccessRecipients(
  db: Db,
  realm: Pick<Realm, 'id' | 'canAccessAllUsersGroupId'>,
  sender: Pick<User, 'id' | 'role' | 'isActive'>,
  recipients: Pick<User, 'id' | 'isBot'>[],
): Promise<void> {
  if (sender.role !== Role.GUEST) return;
  const accessible = await accessibleUserIds(db, realm, sender);
  if (accessible && recipients.some((u) => !u.isBot && !accessible.has(u.id)))
    throw new ApiError('You do not have permission to access some of the recipients.');
}

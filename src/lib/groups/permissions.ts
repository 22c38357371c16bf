// The one question every area asks: does this user hold this permission? A
// permission is a group-setting value, stored as the ID of a user group; a user
// holds it when they are a member of that group directly or through any depth
// of subgroups. System groups nest by role, so role checks are group checks too.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { realmGroupSettingRules, realmGroupSettings } from './group-settings';

/** The IDs of every group `userId` belongs to, directly or through subgroups. */
export async function groupsOfUser(db: Db, userId: number): Promise<Set<number>> {
  const rows = await queryRows<{ id: number | bigint }>(
    db,
    Prisma.sql`
    WITH RECURSIVE member_of(id) AS (
      SELECT "groupId" FROM "UserGroupMember" WHERE "userId" = ${userId}
      UNION
      SELECT s."supergroupId" FROM "UserGroupSubgroup" s JOIN member_of m ON s."subgroupId" = m.id
    )
    SELECT id FROM member_of`,
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** The IDs of every user in any of `groupIds`, directly or through subgroups of any depth. */
export async function membersOfGroups(db: Db, groupIds: number[]): Promise<Set<number>> {
  if (groupIds.length === 0) return new Set();
  const rows = await queryRows<{ userId: number | bigint }>(
    db,
    Prisma.sql`
    WITH RECURSIVE within(id) AS (
      SELECT "id" FROM "UserGroup" WHERE "id" IN (${Prisma.join(groupIds)})
      UNION
      SELECT s."subgroupId" FROM "UserGroupSubgroup" s JOIN within w ON s."supergroupId" = w.id
    )
    SELECT DISTINCT m."userId" AS "userId" FROM "UserGroupMember" m JOIN within w ON m."groupId" = w.id`,
  );
  return new Set(rows.map((r) => Number(r.userId)));
}

/** Answers permission questions for one user, reading their groups once. */
export class Permissions {
  private groups: Promise<Set<number>> | undefined;

  constructor(
    private readonly db: Db,
    readonly userId: number,
  ) {}

  /** Whether the user belongs to `groupId` (directly or through subgroups). */
  async holds(groupId: number): Promise<boolean> {
    this.groups ??= groupsOfUser(this.db, this.userId);
    return (await this.groups).has(groupId);
  }
}

/** The API name of one of the organization's group settings. */
export type RealmSettingName =
  | 'can_access_all_users_group'
  | 'can_add_custom_emoji_group'
  | 'can_add_subscribers_group'
  | 'can_create_groups'
  | 'can_create_private_channel_group'
  | 'can_create_public_channel_group'
  | 'can_create_web_public_channel_group'
  | 'can_delete_any_message_group'
  | 'can_delete_own_message_group'
  | 'can_invite_users_group'
  | 'can_manage_all_groups'
  | 'can_mention_many_users_group'
  | 'can_move_messages_between_channels_group'
  | 'can_move_messages_between_topics_group'
  | 'can_resolve_topics_group';

/**
 * Whether `user` holds the permission stored as `groupId`. Deactivated users
 * hold nothing, and guests never hold a permission whose setting refuses
 * role:everyone (`allowsEveryone` false), as in Zulip.
 */
export async function userHoldsPermission(
  db: Db,
  user: { id: number; role: number; isActive: boolean },
  groupId: number,
  allowsEveryone = true,
): Promise<boolean> {
  if (!user.isActive) return false;
  if (!allowsEveryone && user.role === 600) return false;
  return (await groupsOfUser(db, user.id)).has(groupId);
}

/** Whether `user` holds one of the organization's group-valued permissions, by its API name. */
export async function userHoldsRealmPermission(
  db: Db,
  user: { id: number; role: number; isActive: boolean; realmId: number },
  setting: RealmSettingName,
): Promise<boolean> {
  const realm = await db.realm.findUniqueOrThrow({ where: { id: user.realmId } });
  return userHoldsPermission(
    db,
    user,
    realm[realmGroupSettings[setting]],
    realmGroupSettingRules[setting].allowEveryone,
  );
}

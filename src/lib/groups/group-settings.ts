// Group-setting values (Part 2.2): a setting holds the ID of a user group. A
// named group reads back as its ID; an anonymous group (no name) reads back as
// its direct members and subgroups. This file also knows each setting's rules
// (which system groups it accepts) and checks a requested value against them;
// actions/groups/group-settings.ts stores the value.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { Role, SystemGroup, type SystemGroupName } from '../constants';

/** A group-setting value as the API shows it. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** What a setting accepts, after Zulip's GroupPermissionSetting. */
export interface GroupSettingRule {
  /** Whether role:nobody may hold the permission. */
  allowNobody: boolean;
  /** Whether role:everyone may hold it; when false, guests never hold it. */
  allowEveryone: boolean;
  /** Whether role:owners may hold it (only can_mention_group refuses it). */
  allowOwners?: boolean;
  /** Whether the value must be a system group (SYSTEM_GROUP_REQUIRED otherwise). */
  requireSystemGroup?: boolean;
  /** When set, the only system groups the value may be. */
  allowedSystemGroups?: string[];
}

/** The rules of each user group's own settings. */
export const userGroupSettingRules: Record<string, GroupSettingRule> = {
  can_add_members_group: { allowNobody: true, allowEveryone: false },
  can_join_group: { allowNobody: true, allowEveryone: false },
  can_leave_group: { allowNobody: true, allowEveryone: true },
  can_manage_group: { allowNobody: true, allowEveryone: false },
  can_mention_group: { allowNobody: true, allowEveryone: true, allowOwners: false },
  can_remove_members_group: { allowNobody: true, allowEveryone: false },
};

/** The rules of the organization's group settings. */
export const realmGroupSettingRules: Record<string, GroupSettingRule> = {
  can_access_all_users_group: {
    allowNobody: false,
    allowEveryone: true,
    requireSystemGroup: true,
    allowedSystemGroups: [SystemGroup.EVERYONE, SystemGroup.MEMBERS],
  },
  can_add_custom_emoji_group: { allowNobody: true, allowEveryone: false },
  can_add_subscribers_group: { allowNobody: true, allowEveryone: false },
  can_create_groups: { allowNobody: true, allowEveryone: false },
  can_create_private_channel_group: { allowNobody: true, allowEveryone: false },
  can_create_public_channel_group: { allowNobody: true, allowEveryone: false },
  can_create_web_public_channel_group: {
    allowNobody: true,
    allowEveryone: false,
    requireSystemGroup: true,
    allowedSystemGroups: [
      SystemGroup.MODERATORS,
      SystemGroup.ADMINISTRATORS,
      SystemGroup.OWNERS,
      SystemGroup.NOBODY,
    ],
  },
  can_delete_any_message_group: { allowNobody: true, allowEveryone: false },
  can_delete_own_message_group: { allowNobody: true, allowEveryone: true },
  can_invite_users_group: { allowNobody: true, allowEveryone: false },
  can_manage_all_groups: { allowNobody: false, allowEveryone: false },
  can_mention_many_users_group: { allowNobody: true, allowEveryone: true },
  can_move_messages_between_channels_group: { allowNobody: true, allowEveryone: false },
  can_move_messages_between_topics_group: { allowNobody: true, allowEveryone: true },
  can_resolve_topics_group: { allowNobody: true, allowEveryone: true },
};

/** The realm's group settings: API name and column. */
export const realmGroupSettings = {
  can_access_all_users_group: 'canAccessAllUsersGroupId',
  can_add_custom_emoji_group: 'canAddCustomEmojiGroupId',
  can_add_subscribers_group: 'canAddSubscribersGroupId',
  can_create_groups: 'canCreateGroupsId',
  can_create_private_channel_group: 'canCreatePrivateChannelGroupId',
  can_create_public_channel_group: 'canCreatePublicChannelGroupId',
  can_create_web_public_channel_group: 'canCreateWebPublicChannelGroupId',
  can_delete_any_message_group: 'canDeleteAnyMessageGroupId',
  can_delete_own_message_group: 'canDeleteOwnMessageGroupId',
  can_invite_users_group: 'canInviteUsersGroupId',
  can_manage_all_groups: 'canManageAllGroupsId',
  can_mention_many_users_group: 'canMentionManyUsersGroupId',
  can_move_messages_between_channels_group: 'canMoveMessagesBetweenChannelsGroupId',
  can_move_messages_between_topics_group: 'canMoveMessagesBetweenTopicsGroupId',
  can_resolve_topics_group: 'canResolveTopicsGroupId',
} as const satisfies Record<string, keyof Realm>;

/** The system group each of the organization's group settings holds in a new organization. */
export const realmGroupSettingDefaults: Record<keyof typeof realmGroupSettings, SystemGroupName> = {
  can_access_all_users_group: SystemGroup.EVERYONE,
  can_add_custom_emoji_group: SystemGroup.MEMBERS,
  can_add_subscribers_group: SystemGroup.MEMBERS,
  can_create_groups: SystemGroup.MEMBERS,
  can_create_private_channel_group: SystemGroup.MEMBERS,
  can_create_public_channel_group: SystemGroup.MEMBERS,
  can_create_web_public_channel_group: SystemGroup.OWNERS,
  can_delete_any_message_group: SystemGroup.ADMINISTRATORS,
  can_delete_own_message_group: SystemGroup.EVERYONE,
  can_invite_users_group: SystemGroup.MEMBERS,
  can_manage_all_groups: SystemGroup.ADMINISTRATORS,
  can_mention_many_users_group: SystemGroup.ADMINISTRATORS,
  can_move_messages_between_channels_group: SystemGroup.MEMBERS,
  can_move_messages_between_topics_group: SystemGroup.EVERYONE,
  can_resolve_topics_group: SystemGroup.EVERYONE,
};

/**
 * What each of a user group's settings holds in a new group: a system group,
 * or `group_creator` (an anonymous group of the user who created it).
 */
export const userGroupSettingDefaults: Record<string, SystemGroupName | 'group_creator'> = {
  can_add_members_group: 'group_creator',
  can_join_group: SystemGroup.NOBODY,
  can_leave_group: SystemGroup.EVERYONE,
  can_manage_group: 'group_creator',
  can_mention_group: SystemGroup.EVERYONE,
  can_remove_members_group: SystemGroup.NOBODY,
};

/** Reads the API form of each group ID in `groupIds`; deactivated users are left out of direct_members. */
export async function readGroupSettingValues(
  db: Db,
  groupIds: Iterable<number>,
): Promise<Map<number, GroupSettingValue>> {
  const ids = [...new Set(groupIds)];
  const groups = await db.userGroup.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      name: true,
      members: { where: { user: { isActive: true } }, select: { userId: true } },
      subgroups: { select: { subgroupId: true } },
    },
  });
  const out = new Map<number, GroupSettingValue>();
  for (const g of groups) {
    out.set(
      g.id,
      g.name !== null
        ? g.id
        : {
            direct_members: g.members.map((m) => m.userId).sort((a, b) => a - b),
            direct_subgroups: g.subgroups.map((s) => s.subgroupId).sort((a, b) => a - b),
          },
    );
  }
  return out;
}

/** The API form of one group ID. */
export async function readGroupSettingValue(db: Db, groupId: number): Promise<GroupSettingValue> {
  return (await readGroupSettingValues(db, [groupId])).get(groupId) ?? groupId;
}

/** Canonical form: no members and one subgroup is that group; nothing at all is role:nobody. */
export function canonicalSettingValue(
  value: GroupSettingValue,
  nobodyId: number,
): GroupSettingValue {
  if (typeof value === 'number') return value;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1)
    return value.direct_subgroups[0];
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return nobodyId;
  return value;
}

/** Whether two values name the same holders (order of IDs does not matter). */
export function sameSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const same = (x: number[], y: number[]) =>
    new Set(x).size === new Set(y).size && x.every((id) => y.includes(id));
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}

/** A `{new, old}` change of one group-valued setting, as PATCH requests carry it. */
export interface SettingChange {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

/**
 * The value `change` asks a setting now holding group `currentId` to take, or
 * null when it changes nothing; refuses a stale `old` (EXPECTATION_MISMATCH).
 */
export async function requestedSettingValue(
  db: Db,
  currentId: number,
  change: SettingChange,
  nobodyId: number,
): Promise<GroupSettingValue | null> {
  const current = await readGroupSettingValue(db, currentId);
  const next = canonicalSettingValue(change.new, nobodyId);
  const expected =
    change.old === undefined ? undefined : canonicalSettingValue(change.old, nobodyId);
  return checkSettingChange(current, next, expected) ? next : null;
}

/** The channel settings that let people delete messages: only moderators may give them to anyone. */
const messageDeletionSettings = new Set([
  'can_delete_any_message_group',
  'can_delete_own_message_group',
]);

/** Refuses a member below moderator giving a channel's message-deletion permission to anyone. */
export function checkMessageDeletionGrant(
  setting: string,
  value: GroupSettingValue,
  nobodyId: number,
  actor: Pick<User, 'role'>,
): void {
  if (messageDeletionSettings.has(setting) && value !== nobodyId && actor.role > Role.MODERATOR)
    throw badRequest('Insufficient permission');
}

/** Refuses a `{new, old}` change whose `old` differs from the stored value; says whether `new` changes anything. */
export function checkSettingChange(
  current: GroupSettingValue,
  next: GroupSettingValue,
  expected: GroupSettingValue | undefined,
): boolean {
  if (expected !== undefined && !sameSettingValue(expected, current)) {
    throw new ApiError("'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
  }
  return !sameSettingValue(current, next);
}

/** The ID of a realm's system group, by name. */
export async function systemGroupId(db: Db, realmId: number, name: string): Promise<number> {
  const group = await db.userGroup.findFirstOrThrow({
    where: { realmId, name, isSystemGroup: true },
    select: { id: true },
  });
  return group.id;
}

/** A named, usable group of the realm for a setting or as a subgroup; throws Zulip's messages otherwise. */
async function namedGroupForSetting(db: Db, realmId: number, groupId: number) {
  const group = await db.userGroup.findFirst({
    where: { id: groupId, realmId, name: { not: null } },
  });
  if (!group) throw new ApiError('Invalid user group');
  if (group.deactivated) throw new ApiError('User group is deactivated.');
  return group;
}

/** A setting value after its checks: the ID of a named group, or the members and subgroups of an anonymous one. */
export type CheckedSettingValue = number | { members: number[]; subgroups: number[] };

/**
 * Checks a canonical value against the setting's rule, with Zulip's messages:
 * a named group must be one the setting accepts; a collection must name
 * active users and usable named groups of the realm.
 */
export async function checkGroupSettingValue(
  db: Db,
  realmId: number,
  settingName: string,
  rule: GroupSettingRule,
  value: GroupSettingValue,
): Promise<CheckedSettingValue> {
  if (typeof value === 'number') {
    const group = await namedGroupForSetting(db, realmId, value);
    if (rule.requireSystemGroup && !group.isSystemGroup) throw systemGroupRequired(settingName);
    const refuse = (groupName: string) =>
      new ApiError(`'${settingName}' setting cannot be set to '${groupName}' group.`);
    if (group.name === SystemGroup.INTERNET) throw refuse(SystemGroup.INTERNET);
    if (!rule.allowNobody && group.name === SystemGroup.NOBODY) throw refuse(SystemGroup.NOBODY);
    if (!rule.allowEveryone && group.name === SystemGroup.EVERYONE)
      throw refuse(SystemGroup.EVERYONE);
    if (rule.allowOwners === false && group.name === SystemGroup.OWNERS)
      throw refuse(SystemGroup.OWNERS);
    if (rule.allowedSystemGroups && !rule.allowedSystemGroups.includes(group.name!))
      throw refuse(group.name!);
    return group.id;
  }
  if (rule.requireSystemGroup) throw systemGroupRequired(settingName);
  const members = [...new Set(value.direct_members)];
  const subgroups = [...new Set(value.direct_subgroups)];
  const users = await db.user.findMany({
    where: { id: { in: members }, realmId, isActive: true },
    select: { id: true },
  });
  const missingUser = members.find((id) => !users.some((u) => u.id === id));
  if (missingUser !== undefined) throw new ApiError(`Invalid user ID: ${missingUser}`);
  const groups = await db.userGroup.findMany({
    where: { id: { in: subgroups }, realmId, name: { not: null } },
  });
  const missingGroup = subgroups.find((id) => !groups.some((g) => g.id === id));
  if (missingGroup !== undefined) throw new ApiError(`Invalid user group ID: ${missingGroup}`);
  if (groups.some((g) => g.deactivated)) throw new ApiError('User group is deactivated.');
  return { members, subgroups };
}

function systemGroupRequired(settingName: string): ApiError {
  return new ApiError(
    `'${settingName}' must be a system user group.`,
    'SYSTEM_GROUP_REQUIRED',
    400,
    { setting_name: settingName },
  );
}

// User groups as the API shows them, and the access checks of the group
// operations: who may change a group, through which of its settings, and
// what still uses a group that someone wants to deactivate.
import type { User, UserGroup } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../constants';
import {
  readGroupSettingValues,
  realmGroupSettings,
  userGroupSettingRules,
  type GroupSettingValue,
} from './group-settings';
import { userHoldsPermission, userHoldsRealmPermission } from './permissions';
import type { StateProvider } from '../state';

/** A group's own settings: API name and column. */
export const groupSettingColumns = {
  can_add_members_group: 'canAddMembersGroupId',
  can_join_group: 'canJoinGroupId',
  can_leave_group: 'canLeaveGroupId',
  can_manage_group: 'canManageGroupId',
  can_mention_group: 'canMentionGroupId',
  can_remove_members_group: 'canRemoveMembersGroupId',
} as const satisfies Record<string, keyof UserGroup>;

/** The API name of a group's own setting. */
export type GroupSettingName = keyof typeof groupSettingColumns;

/** The stored group of a group setting; system groups hold role:nobody for all of them. */
function settingGroupId(group: UserGroup, name: GroupSettingName, nobodyId: number): number {
  return group[groupSettingColumns[name]] ?? nobodyId;
}

/** The named groups of a realm as the API shows them (Part 2.3, read form), by ID. */
export async function presentUserGroups(
  db: Db,
  realmId: number,
  options: { includeDeactivated: boolean; ids?: number[] },
) {
  const groups = await db.userGroup.findMany({
    where: {
      realmId,
      name: { not: null },
      ...(options.includeDeactivated ? {} : { deactivated: false }),
      ...(options.ids ? { id: { in: options.ids } } : {}),
    },
    include: {
      members: { where: { user: { isActive: true } }, select: { userId: true } },
      subgroups: { select: { subgroupId: true } },
    },
    orderBy: { id: 'asc' },
  });
  const nobody = await db.userGroup.findFirst({
    where: { realmId, name: 'role:nobody', isSystemGroup: true },
    select: { id: true },
  });
  const nobodyId = nobody?.id ?? 0;
  const settingIds = groups.flatMap((g) =>
    (Object.keys(groupSettingColumns) as GroupSettingName[]).map((n) =>
      settingGroupId(g, n, nobodyId),
    ),
  );
  const values = await readGroupSettingValues(db, settingIds);
  const value = (g: UserGroup, n: GroupSettingName): GroupSettingValue =>
    values.get(settingGroupId(g, n, nobodyId)) ?? nobodyId;
  return groups.map((g) => ({
    id: g.id,
    name: g.name!,
    description: g.description,
    members: g.members.map((m) => m.userId).sort((a, b) => a - b),
    direct_subgroup_ids: g.subgroups.map((s) => s.subgroupId).sort((a, b) => a - b),
    is_system_group: g.isSystemGroup,
    deactivated: g.deactivated,
    creator_id: g.creatorId,
    date_created: g.dateCreated ? Math.floor(g.dateCreated.getTime() / 1000) : null,
    can_add_members_group: value(g, 'can_add_members_group'),
    can_join_group: value(g, 'can_join_group'),
    can_leave_group: value(g, 'can_leave_group'),
    can_manage_group: value(g, 'can_manage_group'),
    can_mention_group: value(g, 'can_mention_group'),
    can_remove_members_group: value(g, 'can_remove_members_group'),
  }));
}

/** One group in the read form. */
export async function presentUserGroup(db: Db, realmId: number, groupId: number) {
  const [group] = await presentUserGroups(db, realmId, {
    includeDeactivated: true,
    ids: [groupId],
  });
  return group;
}

/** A named group of the realm; "Invalid user group" otherwise, and "User group is deactivated." unless allowed. */
export async function getNamedGroup(
  db: Db,
  realmId: number,
  groupId: number,
  allowDeactivated = false,
): Promise<UserGroup> {
  const group = await db.userGroup.findFirst({
    where: { id: groupId, realmId, name: { not: null } },
  });
  if (!group) throw new ApiError('Invalid user group');
  if (group.deactivated && !allowDeactivated) throw new ApiError('User group is deactivated.');
  return group;
}

/** Whether `actor` holds one of the group's own settings. */
export async function holdsGroupSetting(
  db: Db,
  actor: User,
  group: UserGroup,
  name: GroupSettingName,
): Promise<boolean> {
  const groupId = group[groupSettingColumns[name]];
  return (
    groupId !== null &&
    userHoldsPermission(db, actor, groupId, userGroupSettingRules[name].allowEveryone)
  );
}

/**
 * The group `groupId`, if `actor` may change it through `permission`: system
 * groups never; otherwise the realm's can_manage_all_groups, the group's
 * can_manage_group, or the given setting itself. "Insufficient permission" otherwise.
 */
export async function accessUserGroupForUpdate(
  db: Db,
  actor: User,
  groupId: number,
  permission: GroupSettingName,
  allowDeactivated = false,
): Promise<UserGroup> {
  const group = await getNamedGroup(db, actor.realmId, groupId, allowDeactivated);
  if (group.isSystemGroup) throw new ApiError('Insufficient permission');
  if (await userHoldsRealmPermission(db, actor, 'can_manage_all_groups')) return group;
  if (await holdsGroupSetting(db, actor, group, 'can_manage_group')) return group;
  if (permission !== 'can_manage_group' && (await holdsGroupSetting(db, actor, group, permission)))
    return group;
  throw new ApiError('Insufficient permission');
}

/** Refuses guests and bots, as Zulip's require_member_or_admin does. */
export function requireMemberOrAdmin(actor: User): void {
  if (actor.role === Role.GUEST) throw new ApiError('Not allowed for guest users');
  if (actor.isBot) throw new ApiError('This endpoint does not accept bot requests.');
}

/** Where a group is still used: the `objections` of CANNOT_DEACTIVATE_GROUP_IN_USE. */
export async function deactivationObjections(
  db: Db,
  group: UserGroup,
): Promise<Record<string, unknown>[]> {
  const objections: Record<string, unknown>[] = [];
  const supers = await db.userGroupSubgroup.findMany({
    where: { subgroupId: group.id },
    include: { supergroup: true },
  });
  const activeNamedSupers = supers
    .filter((s) => s.supergroup.name !== null && !s.supergroup.deactivated)
    .map((s) => s.supergroupId);
  if (activeNamedSupers.length > 0)
    objections.push({ type: 'subgroup', supergroup_ids: activeNamedSupers.sort((a, b) => a - b) });
  // The group holds a setting directly, or through an anonymous group it is a subgroup of.
  const using = new Set([
    group.id,
    ...supers.filter((s) => s.supergroup.name === null).map((s) => s.supergroupId),
  ]);

  const streams = await db.stream.findMany({
    where: { realmId: group.realmId, isArchived: false },
    orderBy: { id: 'asc' },
  });
  const streamColumns = {
    can_add_subscribers_group: 'canAddSubscribersGroupId',
    can_administer_channel_group: 'canAdministerChannelGroupId',
    can_delete_any_message_group: 'canDeleteAnyMessageGroupId',
    can_delete_own_message_group: 'canDeleteOwnMessageGroupId',
    can_move_messages_out_of_channel_group: 'canMoveMessagesOutOfChannelGroupId',
    can_move_messages_within_channel_group: 'canMoveMessagesWithinChannelGroupId',
    can_remove_subscribers_group: 'canRemoveSubscribersGroupId',
    can_resolve_topics_group: 'canResolveTopicsGroupId',
    can_send_message_group: 'canSendMessageGroupId',
    can_subscribe_group: 'canSubscribeGroupId',
  } as const;
  for (const stream of streams) {
    const settings = Object.entries(streamColumns)
      .filter(([, column]) => using.has(stream[column]))
      .map(([name]) => name);
    if (settings.length > 0) objections.push({ type: 'channel', channel_id: stream.id, settings });
  }

  const groups = await db.userGroup.findMany({
    where: { realmId: group.realmId, name: { not: null }, deactivated: false },
    orderBy: { id: 'asc' },
  });
  for (const other of groups) {
    const settings = Object.entries(groupSettingColumns)
      .filter(([, column]) => other[column] !== null && using.has(other[column]!))
      .map(([name]) => name);
    if (settings.length > 0) objections.push({ type: 'user_group', group_id: other.id, settings });
  }

  const realm = await db.realm.findUniqueOrThrow({ where: { id: group.realmId } });
  const realmSettings = Object.entries(realmGroupSettings)
    .filter(([, column]) => using.has(realm[column]))
    .map(([name]) => name);
  if (realmSettings.length > 0) objections.push({ type: 'realm', settings: realmSettings });
  return objections;
}

/** `user_group`: the organization's groups (deactivated ones only for clients that asked for them). */
export const userGroupState: StateProvider = async ({ db, realm, clientCapabilities }) => ({
  realm_user_groups: await presentUserGroups(db, realm.id, {
    includeDeactivated: clientCapabilities.include_deactivated_groups === true,
  }),
});

// Creating, changing, deactivating user groups and changing their members and
// subgroups, each in one transaction with user_group events after the commit.
import type { Realm, User, UserGroup } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { SystemGroup } from '../../lib/constants';
import { publishGroupEvent } from '../../lib/groups/group-events';
import {
  canonicalSettingValue,
  readGroupSettingValue,
  requestedSettingValue,
  type SettingChange,
  systemGroupId,
  userGroupSettingRules,
  type GroupSettingValue,
} from '../../lib/groups/group-settings';
import { resolveGroupSettingValue } from './group-settings';
import { userHoldsRealmPermission } from '../../lib/groups/permissions';
import {
  accessUserGroupForUpdate,
  deactivationObjections,
  groupSettingColumns,
  presentUserGroup,
  type GroupSettingName,
} from '../../lib/groups/user-groups';
import type { EventOf } from '../../events/queues';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

const reservedPrefixes = ['@', 'role:', 'user:', 'stream:', 'channel:'];

/** Checks a group name as Zulip does. */
export function checkGroupName(name: string): string {
  if (name.trim() === '') throw new ApiError("User group name can't be empty!");
  if (name.length > 100) throw new ApiError('User group name cannot exceed 100 characters.');
  const prefix = reservedPrefixes.find((p) => name.startsWith(p));
  if (prefix) throw new ApiError(`User group name cannot start with '${prefix}'.`);
  return name;
}

async function checkNameFree(tx: Db, realmId: number, name: string): Promise<void> {
  if (await tx.userGroup.findFirst({ where: { realmId, name } }))
    throw new ApiError(`User group '${name}' already exists.`);
}

/** Active users of the realm with these IDs, or "Invalid user ID: n" for the first that is not one. */
async function activeUsers(tx: Db, realmId: number, ids: number[]): Promise<number[]> {
  const found = await tx.user.findMany({
    where: { id: { in: ids }, realmId, isActive: true },
    select: { id: true },
  });
  const missing = ids.find((id) => !found.some((u) => u.id === id));
  if (missing !== undefined) throw new ApiError(`Invalid user ID: ${missing}`);
  return [...new Set(ids)];
}

/** Named groups of the realm usable as subgroups, or the error for the first that is not. */
async function usableSubgroups(tx: Db, realmId: number, ids: number[]): Promise<UserGroup[]> {
  const groups = await tx.userGroup.findMany({
    where: { id: { in: ids }, realmId, name: { not: null } },
  });
  const missing = ids.find((id) => !groups.some((g) => g.id === id));
  if (missing !== undefined) throw new ApiError(`Invalid user group ID: ${missing}`);
  if (groups.some((g) => g.deactivated)) throw new ApiError('User group is deactivated.');
  return groups;
}

/** Every group reachable downwards from `ids` (the groups themselves included). */
async function recursiveSubgroups(tx: Db, ids: number[]): Promise<Set<number>> {
  const seen = new Set(ids);
  let frontier = ids;
  while (frontier.length > 0) {
    const rows = await tx.userGroupSubgroup.findMany({
      where: { supergroupId: { in: frontier } },
      select: { subgroupId: true },
    });
    frontier = rows.map((r) => r.subgroupId).filter((id) => !seen.has(id));
    frontier.forEach((id) => seen.add(id));
  }
  return seen;
}

/** What creating a group needs; settings not given take Zulip's defaults. */
export interface NewUserGroup {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Partial<Record<GroupSettingName, GroupSettingValue>>;
}

/** POST /user_groups/create. */
export async function doCreateUserGroup(
  services: Services,
  actor: User,
  realm: Realm,
  input: NewUserGroup,
): Promise<number> {
  return services.db.write(async (tx, onCommit) => {
    if (!(await userHoldsRealmPermission(tx, actor, 'can_create_groups')))
      throw new ApiError('Insufficient permission');
    const members = await activeUsers(tx, realm.id, input.members);
    const name = checkGroupName(input.name);
    const nobody = await systemGroupId(tx, realm.id, SystemGroup.NOBODY);
    const columns: Record<string, number> = {};
    for (const [setting, value] of Object.entries(input.settings) as [
      GroupSettingName,
      GroupSettingValue,
    ][]) {
      columns[groupSettingColumns[setting]] = await resolveGroupSettingValue(
        tx,
        realm.id,
        setting,
        userGroupSettingRules[setting],
        canonicalSettingValue(value, nobody),
      );
    }
    const creatorGroup = async () =>
      (
        await tx.userGroup.create({
          data: { realmId: realm.id, members: { create: { userId: actor.id } } },
        })
      ).id;
    const defaults: Record<GroupSettingName, () => Promise<number>> = {
      can_add_members_group: creatorGroup,
      can_manage_group: creatorGroup,
      can_join_group: async () => nobody,
      can_remove_members_group: async () => nobody,
      can_leave_group: () => systemGroupId(tx, realm.id, SystemGroup.EVERYONE),
      can_mention_group: () => systemGroupId(tx, realm.id, SystemGroup.EVERYONE),
    };
    for (const [setting, column] of Object.entries(groupSettingColumns) as [
      GroupSettingName,
      string,
    ][]) {
      if (!(column in columns)) columns[column] = await defaults[setting]();
    }
    await checkNameFree(tx, realm.id, name);
    const group = await tx.userGroup.create({
      data: {
        realmId: realm.id,
        name,
        description: input.description,
        creatorId: actor.id,
        dateCreated: new Date(),
        ...columns,
      },
    });
    await tx.userGroupMember.createMany({
      data: members.map((userId) => ({ groupId: group.id, userId })),
    });
    const subgroups = await usableSubgroups(tx, realm.id, [...new Set(input.subgroups)]);
    await tx.userGroupSubgroup.createMany({
      data: subgroups.map((s) => ({ supergroupId: group.id, subgroupId: s.id })),
    });
    const presented = await presentUserGroup(tx, realm.id, group.id);
    const everyone = new EveryoneIn(realm.id);
    onCommit(() =>
      services.bus.publish({ type: 'user_group', op: 'add', group: presented }, everyone),
    );
    return group.id;
  });
}

/** What PATCH /user_groups/{id} asks for. */
export interface UserGroupChange {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<GroupSettingName, SettingChange>>;
}

/** PATCH /user_groups/{id}: renames, describes, reactivates, or changes the settings of a group. */
export async function doUpdateUserGroup(
  services: Services,
  actor: User,
  groupId: number,
  change: UserGroupChange,
): Promise<void> {
  if (
    change.name === undefined &&
    change.description === undefined &&
    change.deactivated === undefined &&
    Object.keys(change.settings).length === 0
  ) {
    throw new ApiError('No new data supplied');
  }
  await services.db.write(async (tx, onCommit) => {
    let group = await accessUserGroupForUpdate(tx, actor, groupId, 'can_manage_group', true);
    const data: Record<string, unknown> = {};
    if (change.name !== undefined && change.name !== group.name) {
      const name = checkGroupName(change.name);
      await checkNameFree(tx, group.realmId, name);
      group = await tx.userGroup.update({ where: { id: group.id }, data: { name } });
      data.name = name;
    }
    if (change.description !== undefined && change.description !== group.description) {
      group = await tx.userGroup.update({
        where: { id: group.id },
        data: { description: change.description },
      });
      data.description = change.description;
    }
    const reactivated = change.deactivated === false && group.deactivated;
    if (reactivated)
      group = await tx.userGroup.update({ where: { id: group.id }, data: { deactivated: false } });
    const nobody = await systemGroupId(tx, group.realmId, SystemGroup.NOBODY);
    for (const [setting, request] of Object.entries(change.settings) as [
      GroupSettingName,
      SettingChange,
    ][]) {
      const column = groupSettingColumns[setting];
      const currentId = group[column] ?? nobody;
      const next = await requestedSettingValue(tx, currentId, request, nobody);
      if (next === null) continue;
      const id = await resolveGroupSettingValue(
        tx,
        group.realmId,
        setting,
        userGroupSettingRules[setting],
        next,
        currentId,
      );
      group = await tx.userGroup.update({ where: { id: group.id }, data: { [column]: id } });
      data[setting] = await readGroupSettingValue(tx, id);
    }
    const everyone = new EveryoneIn(group.realmId);
    const presented = await presentUserGroup(tx, group.realmId, group.id);
    const deactivated = group.deactivated;
    onCommit(() => {
      if (reactivated)
        publishGroupEvent(
          services.bus,
          everyone,
          { type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: false } },
          { deactivated, group: presented },
        );
      if (Object.keys(data).length > 0)
        publishGroupEvent(
          services.bus,
          everyone,
          { type: 'user_group', op: 'update', group_id: group.id, data },
          { deactivated },
        );
    });
  });
}

/** POST /user_groups/{id}/deactivate: refused while the group is still used somewhere. */
export async function doDeactivateUserGroup(
  services: Services,
  actor: User,
  groupId: number,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const group = await accessUserGroupForUpdate(tx, actor, groupId, 'can_manage_group');
    const objections = await deactivationObjections(tx, group);
    if (objections.length > 0)
      throw new ApiError(
        'Cannot deactivate user group in use.',
        'CANNOT_DEACTIVATE_GROUP_IN_USE',
        400,
        { objections },
      );
    await tx.userGroup.update({ where: { id: group.id }, data: { deactivated: true } });
    const everyone = new EveryoneIn(group.realmId);
    onCommit(() =>
      publishGroupEvent(
        services.bus,
        everyone,
        { type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: true } },
        { deactivated: true },
      ),
    );
  });
}

/** What POST /user_groups/{id}/members asks for. */
export interface MembershipChange {
  add?: number[];
  delete?: number[];
  addSubgroups?: number[];
  deleteSubgroups?: number[];
}

/** Access through a self-service setting (join, leave), falling back to the general one. */
async function accessForSelfOrOthers(
  tx: Db,
  actor: User,
  groupId: number,
  ids: number[],
  own: GroupSettingName,
  general: GroupSettingName,
): Promise<UserGroup> {
  if (ids.length === 1 && ids[0] === actor.id) {
    try {
      return await accessUserGroupForUpdate(tx, actor, groupId, own, true);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  return accessUserGroupForUpdate(tx, actor, groupId, general, true);
}

/** POST /user_groups/{id}/members: adds and removes members, then subgroups, in that order. */
export async function doUpdateUserGroupMembers(
  services: Services,
  actor: User,
  groupId: number,
  change: MembershipChange,
): Promise<void> {
  const { add = [], delete: remove = [], addSubgroups = [], deleteSubgroups = [] } = change;
  if (!add.length && !remove.length && !addSubgroups.length && !deleteSubgroups.length) {
    throw new ApiError(
      'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
    );
  }
  await services.db.write(async (tx, onCommit) => {
    const steps: MembershipStep[] = [];
    if (add.length) steps.push(await addMembers(tx, actor, groupId, add));
    if (remove.length) steps.push(await removeMembers(tx, actor, groupId, remove));
    if (addSubgroups.length) steps.push(await addGroupSubgroups(tx, actor, groupId, addSubgroups));
    if (deleteSubgroups.length)
      steps.push(await removeGroupSubgroups(tx, actor, groupId, deleteSubgroups));
    const everyone = new EveryoneIn(actor.realmId);
    const deactivated = steps[steps.length - 1].group.deactivated;
    onCommit(() => {
      for (const { event } of steps)
        publishGroupEvent(services.bus, everyone, event, { deactivated });
    });
  });
}

/** One membership change made: the group as checked, and the event telling of it. */
interface MembershipStep {
  group: UserGroup;
  event: EventOf<'user_group'>;
}

/** Adds users to the group, each of whom must not be a member yet. */
async function addMembers(
  tx: Db,
  actor: User,
  groupId: number,
  add: number[],
): Promise<MembershipStep> {
  const group = await accessForSelfOrOthers(
    tx,
    actor,
    groupId,
    add,
    'can_join_group',
    'can_add_members_group',
  );
  const ids = await activeUsers(tx, actor.realmId, add);
  const existing = await tx.userGroupMember.findMany({ where: { groupId, userId: { in: ids } } });
  if (existing.length > 0)
    throw new ApiError(
      `User ${ids.find((id) => existing.some((m) => m.userId === id))} is already a member of this group`,
    );
  await tx.userGroupMember.createMany({ data: ids.map((userId) => ({ groupId, userId })) });
  return {
    group,
    event: { type: 'user_group', op: 'add_members', group_id: groupId, user_ids: ids },
  };
}

/** Removes users from the group, each of whom must be a member. */
async function removeMembers(
  tx: Db,
  actor: User,
  groupId: number,
  remove: number[],
): Promise<MembershipStep> {
  const ids = await activeUsers(tx, actor.realmId, remove);
  const group = await accessForSelfOrOthers(
    tx,
    actor,
    groupId,
    remove,
    'can_leave_group',
    'can_remove_members_group',
  );
  const existing = await tx.userGroupMember.findMany({ where: { groupId, userId: { in: ids } } });
  const missing = ids.find((id) => !existing.some((m) => m.userId === id));
  if (missing !== undefined)
    throw new ApiError(`There is no member '${missing}' in this user group`);
  await tx.userGroupMember.deleteMany({ where: { groupId, userId: { in: ids } } });
  return {
    group,
    event: { type: 'user_group', op: 'remove_members', group_id: groupId, user_ids: ids },
  };
}

/** The distinct IDs of `requested`, each a named group of the organization. */
async function namedGroupIds(tx: Db, realmId: number, requested: number[]): Promise<number[]> {
  const ids = [...new Set(requested)];
  const known = await tx.userGroup.findMany({
    where: { id: { in: ids }, realmId, name: { not: null } },
    select: { id: true },
  });
  const missing = ids.find((id) => !known.some((g) => g.id === id));
  if (missing !== undefined) throw new ApiError(`Invalid user group ID: ${missing}`);
  return ids;
}

/** Makes groups subgroups of the group, refusing present ones and circles. */
async function addGroupSubgroups(
  tx: Db,
  actor: User,
  groupId: number,
  requested: number[],
): Promise<MembershipStep> {
  const ids = await namedGroupIds(tx, actor.realmId, requested);
  const group = await accessUserGroupForUpdate(tx, actor, groupId, 'can_add_members_group', true);
  await usableSubgroups(tx, actor.realmId, ids);
  const existing = await tx.userGroupSubgroup.findMany({
    where: { supergroupId: groupId, subgroupId: { in: ids } },
  });
  if (existing.length > 0)
    throw new ApiError(`User group ${existing[0].subgroupId} is already a subgroup of this group.`);
  if ((await recursiveSubgroups(tx, ids)).has(groupId))
    throw new ApiError(
      `User group ${groupId} is already a subgroup of one of the passed subgroups.`,
    );
  await tx.userGroupSubgroup.createMany({
    data: ids.map((subgroupId) => ({ supergroupId: groupId, subgroupId })),
  });
  return {
    group,
    event: { type: 'user_group', op: 'add_subgroups', group_id: groupId, direct_subgroup_ids: ids },
  };
}

/** Removes subgroups from the group, each of which must be one. */
async function removeGroupSubgroups(
  tx: Db,
  actor: User,
  groupId: number,
  requested: number[],
): Promise<MembershipStep> {
  const ids = await namedGroupIds(tx, actor.realmId, requested);
  const group = await accessUserGroupForUpdate(tx, actor, groupId, 'can_manage_group', true);
  const existing = await tx.userGroupSubgroup.findMany({
    where: { supergroupId: groupId, subgroupId: { in: ids } },
  });
  const absent = ids.find((id) => !existing.some((s) => s.subgroupId === id));
  if (absent !== undefined)
    throw new ApiError(`User group ${absent} is not a subgroup of this group.`);
  await tx.userGroupSubgroup.deleteMany({
    where: { supergroupId: groupId, subgroupId: { in: ids } },
  });
  return {
    group,
    event: {
      type: 'user_group',
      op: 'remove_subgroups',
      group_id: groupId,
      direct_subgroup_ids: ids,
    },
  };
}

// User groups: GET /user_groups, POST /user_groups/create, PATCH
// /user_groups/{id}, POST /user_groups/{id}/deactivate, GET and POST
// /user_groups/{id}/members, GET /user_groups/{id}/members/{user_id} and
// GET and POST /user_groups/{id}/subgroups.
import {
  doCreateUserGroup,
  doDeactivateUserGroup,
  doUpdateUserGroup,
  doUpdateUserGroupMembers,
} from '../actions/groups/user-groups';
import { ApiError } from '../errors';
import type { GroupSettingValue, SettingChange } from '../lib/groups/group-settings';
import { groupMemberIds, subgroupIds } from '../lib/groups/membership';
import {
  getNamedGroup,
  groupSettingColumns,
  presentUserGroups,
  requireMemberOrAdmin,
  type GroupSettingName,
} from '../lib/groups/user-groups';
import { accessUserById } from '../lib/users/users';
import type { Handler, HandlerMap } from './types';

const settingNames = Object.keys(groupSettingColumns) as GroupSettingName[];

/** The organization's groups. */
export const getUserGroups: Handler<'get-user-groups'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  requireMemberOrAdmin(user);
  const groups = await services.db.read((db) =>
    presentUserGroups(db, realm.id, {
      includeDeactivated: params.include_deactivated_groups ?? false,
    }),
  );
  return { user_groups: groups };
};

/** Creates a group. */
export const createUserGroup: Handler<'create-user-group'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const settings: Partial<Record<GroupSettingName, GroupSettingValue>> = {};
  for (const name of settingNames)
    if (params[name] !== undefined) settings[name] = params[name] as GroupSettingValue;
  const groupId = await doCreateUserGroup(services, user, realm, {
    name: params.name,
    description: params.description,
    members: params.members,
    subgroups: params.subgroups ?? [],
    settings,
  });
  return { group_id: groupId };
};

/** Renames, describes, reactivates or changes the settings of a group. */
export const updateUserGroup: Handler<'update-user-group'> = async ({ params, services, user }) => {
  requireMemberOrAdmin(user);
  const settings: Partial<Record<GroupSettingName, SettingChange>> = {};
  for (const name of settingNames)
    if (params[name] !== undefined) settings[name] = params[name] as SettingChange;
  await doUpdateUserGroup(services, user, params.user_group_id, {
    name: params.name,
    description: params.description,
    deactivated: params.deactivated,
    settings,
  });
  return {};
};

/** Deactivates a group that nothing uses any more. */
export const deactivateUserGroup: Handler<'deactivate-user-group'> = async ({
  params,
  services,
  user,
}) => {
  await doDeactivateUserGroup(services, user, params.user_group_id);
  return {};
};

/** Adds and removes members and subgroups. */
export const updateUserGroupMembers: Handler<'update-user-group-members'> = async ({
  params,
  services,
  user,
}) => {
  requireMemberOrAdmin(user);
  await doUpdateUserGroupMembers(services, user, params.user_group_id, {
    add: params.add,
    delete: params.delete,
    addSubgroups: params.add_subgroups,
    deleteSubgroups: params.delete_subgroups,
  });
  return {};
};

/** The active members of a group, direct or through its subgroups. */
export const getUserGroupMembers: Handler<'get-user-group-members'> = async ({
  params,
  services,
  user,
}) => {
  requireMemberOrAdmin(user);
  const members = await services.db.read(async (db) => {
    const group = await getNamedGroup(db, user.realmId, params.user_group_id, true);
    return groupMemberIds(db, group.id, params.direct_member_only ?? false);
  });
  return { members };
};

/** Whether a user is in a group, directly or through its subgroups. */
export const getIsUserGroupMember: Handler<'get-is-user-group-member'> = async ({
  params,
  services,
  user,
}) => {
  requireMemberOrAdmin(user);
  const isMember = await services.db.read(async (db) => {
    const group = await getNamedGroup(db, user.realmId, params.user_group_id, true);
    const target = await accessUserById(db, user, params.user_id, { forAdmin: false });
    const members = await groupMemberIds(db, group.id, params.direct_member_only ?? false);
    return members.includes(target.id);
  });
  return { is_user_group_member: isMember };
};

/** The groups inside a group, direct or at any depth. */
export const getUserGroupSubgroups: Handler<'get-user-group-subgroups'> = async ({
  params,
  services,
  user,
}) => {
  requireMemberOrAdmin(user);
  const subgroups = await services.db.read(async (db) => {
    const group = await getNamedGroup(db, user.realmId, params.user_group_id, true);
    return subgroupIds(db, group.id, params.direct_subgroup_only ?? false);
  });
  return { subgroups };
};

/** Adds and removes direct subgroups of a group (add first, then delete). */
export const updateUserGroupSubgroups: Handler<'update-user-group-subgroups'> = async ({
  params,
  services,
  user,
}) => {
  requireMemberOrAdmin(user);
  if (!params.add?.length && !params.delete?.length)
    throw new ApiError('Nothing to do. Specify at least one of "add" or "delete".');
  await doUpdateUserGroupMembers(services, user, params.user_group_id, {
    addSubgroups: params.add,
    deleteSubgroups: params.delete,
  });
  return {};
};

/** The operations of this area, by operationId. */
export const userGroupHandlers = {
  'get-user-groups': getUserGroups,
  'create-user-group': createUserGroup,
  'update-user-group': updateUserGroup,
  'deactivate-user-group': deactivateUserGroup,
  'update-user-group-members': updateUserGroupMembers,
  'get-user-group-members': getUserGroupMembers,
  'get-is-user-group-member': getIsUserGroupMember,
  'get-user-group-subgroups': getUserGroupSubgroups,
  'update-user-group-subgroups': updateUserGroupSubgroups,
} satisfies Partial<HandlerMap>;

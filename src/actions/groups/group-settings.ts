// Storing a group-setting value: a named group is held by its ID; a
// collection of users and groups is held by an anonymous group, reused when
// the setting already has one and created otherwise.
import type { Db } from '../../db/client';
import {
  checkGroupSettingValue,
  type GroupSettingRule,
  type GroupSettingValue,
} from '../../lib/groups/group-settings';

/**
 * Turns a canonical value into the ID of the group that will hold the
 * setting: a named group is checked against the setting's rule; a collection
 * reuses `currentGroupId` when that is already an anonymous group, or creates one.
 */
export async function resolveGroupSettingValue(
  tx: Db,
  realmId: number,
  settingName: string,
  rule: GroupSettingRule,
  value: GroupSettingValue,
  currentGroupId?: number | null,
): Promise<number> {
  const checked = await checkGroupSettingValue(tx, realmId, settingName, rule, value);
  if (typeof checked === 'number') return checked;
  const { members, subgroups } = checked;
  const current = currentGroupId
    ? await tx.userGroup.findUnique({
        where: { id: currentGroupId },
        select: { id: true, name: true },
      })
    : null;
  const groupId =
    current && current.name === null
      ? current.id
      : (await tx.userGroup.create({ data: { realmId } })).id;
  await tx.userGroupMember.deleteMany({ where: { groupId } });
  await tx.userGroupSubgroup.deleteMany({ where: { supergroupId: groupId } });
  await tx.userGroupMember.createMany({ data: members.map((userId) => ({ groupId, userId })) });
  await tx.userGroupSubgroup.createMany({
    data: subgroups.map((subgroupId) => ({ supergroupId: groupId, subgroupId })),
  });
  return groupId;
}

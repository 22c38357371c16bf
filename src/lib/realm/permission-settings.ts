// `server_supported_permission_settings` of the realm entry: for every
// group-valued permission of organizations, channels and user groups, which
// groups it accepts and what a new organization, channel or group gets, so
// that clients can build their settings forms.
import { SystemGroup } from '../constants';
import { streamGroupDefaults, everyoneAllowed, type StreamGroupSetting } from '../channels/streams';
import {
  realmGroupSettingDefaults,
  realmGroupSettingRules,
  userGroupSettingDefaults,
  userGroupSettingRules,
  type GroupSettingRule,
} from '../groups/group-settings';

/** One permission's configuration, as the API describes it. */
interface PermissionConfig {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

function describe(
  rule: GroupSettingRule,
  defaultGroup: string,
  defaultForSystemGroups: string | null = null,
): PermissionConfig {
  return {
    require_system_group: rule.requireSystemGroup ?? false,
    allow_internet_group: false,
    allow_nobody_group: rule.allowNobody,
    allow_everyone_group: rule.allowEveryone,
    default_group_name: defaultGroup,
    default_for_system_groups: defaultForSystemGroups,
    allowed_system_groups: rule.allowedSystemGroups ?? [],
  };
}

const realm = Object.fromEntries(
  Object.entries(realmGroupSettingDefaults).map(([name, group]) => [
    name,
    describe(realmGroupSettingRules[name], group),
  ]),
);

const stream = Object.fromEntries(
  (Object.entries(streamGroupDefaults) as [StreamGroupSetting, string][]).map(([name, group]) => [
    name,
    describe(
      { allowNobody: true, allowEveryone: everyoneAllowed.has(name) },
      group === 'creator' ? 'channel_creator' : group,
    ),
  ]),
);

const group = Object.fromEntries(
  Object.entries(userGroupSettingDefaults).map(([name, defaultGroup]) => [
    name,
    describe(
      userGroupSettingRules[name],
      defaultGroup,
      name === 'can_mention_group' ? null : SystemGroup.NOBODY,
    ),
  ]),
);

/** Every group-valued permission this server has, by where it lives. */
export const supportedPermissionSettings = { realm, stream, group };

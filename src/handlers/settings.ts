// PATCH /settings and PATCH /realm/user_settings_defaults.
import { doUpdateRealmUserSettingsDefaults } from '../actions/realm/realm-user-defaults';
import { doUpdateUserSettings } from '../actions/users/user-settings';
import {
  defaultableSettingNames,
  userSettingNames,
  type UserSettingName,
  type UserSettingValue,
} from '../lib/users/user-settings';
import type { Handler, HandlerMap, Params } from './types';

/** Every personal setting is a parameter of the operation (a compile error names any missing). */
const everySettingIsAParameter: Exclude<
  UserSettingName,
  keyof Params<'update-settings'>
> extends never
  ? true
  : Exclude<UserSettingName, keyof Params<'update-settings'>> = true;
void everySettingIsAParameter;

/** Changes the requester's own settings. */
export const updateSettings: Handler<'update-settings'> = async ({ params, services, user }) => {
  const given = params as Partial<Record<UserSettingName, UserSettingValue>>;
  const settings: Partial<Record<UserSettingName, UserSettingValue>> = {};
  for (const name of userSettingNames) if (given[name] !== undefined) settings[name] = given[name];
  await doUpdateUserSettings(services, user, { fullName: params.full_name, settings });
  return {};
};

/** An administrator changes the personal settings new accounts start with. */
export const updateRealmUserSettingsDefaults: Handler<
  'update-realm-user-settings-defaults'
> = async ({ params, services, user }) => {
  const given = params as Partial<Record<UserSettingName, UserSettingValue>>;
  const settings: Partial<Record<UserSettingName, UserSettingValue>> = {};
  for (const name of defaultableSettingNames)
    if (given[name] !== undefined) settings[name] = given[name];
  await doUpdateRealmUserSettingsDefaults(services, user, settings);
  return {};
};

/** The operations of this area, by operationId. */
export const settingsHandlers = {
  'update-settings': updateSettings,
  'update-realm-user-settings-defaults': updateRealmUserSettingsDefaults,
} satisfies Partial<HandlerMap>;

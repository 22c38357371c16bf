// PATCH /settings (and its aliases from before feature level 80, PATCH
// /settings/display and /settings/notifications) and PATCH
// /realm/user_settings_defaults.
import { doUpdateRealmUserSettingsDefaults } from '../actions/realm/realm-user-defaults';
import { doUpdateUserSettings } from '../actions/users/user-settings';
import {
  defaultableSettingNames,
  userSettingNames,
  type UserSettingName,
  type UserSettingValue,
} from '../lib/users/user-settings';
import type { AuthedRequest, Handler, HandlerMap, Params, Result } from './types';

/** Every personal setting is a parameter of the operation (a compile error names any missing). */
const everySettingIsAParameter: Exclude<
  UserSettingName,
  keyof Params<'update-settings'>
> extends never
  ? true
  : Exclude<UserSettingName, keyof Params<'update-settings'>> = true;
void everySettingIsAParameter;

/** Changes the requester's own settings; the aliases of PATCH /settings share its parameters. */
async function changeOwnSettings({
  params,
  services,
  user,
}: Pick<AuthedRequest<'update-settings'>, 'params' | 'services' | 'user'>): Promise<
  Result<'update-settings'>
> {
  const given = params as Partial<Record<UserSettingName, UserSettingValue>>;
  const settings: Partial<Record<UserSettingName, UserSettingValue>> = {};
  for (const name of userSettingNames) if (given[name] !== undefined) settings[name] = given[name];
  await doUpdateUserSettings(services, user, { fullName: params.full_name, settings });
  return {};
}

/** PATCH /settings. */
export const updateSettings: Handler<'update-settings'> = changeOwnSettings;
/** PATCH /settings/display, merged into PATCH /settings at feature level 80. */
export const updateDisplaySettings: Handler<'update-display-settings'> = changeOwnSettings;
/** PATCH /settings/notifications, merged into PATCH /settings at feature level 80. */
export const updateNotificationSettings: Handler<'update-notification-settings'> =
  changeOwnSettings;

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
  'update-display-settings': updateDisplaySettings,
  'update-notification-settings': updateNotificationSettings,
  'update-realm-user-settings-defaults': updateRealmUserSettingsDefaults,
} satisfies Partial<HandlerMap>;

// PATCH /settings.
import { doUpdateUserSettings } from '../actions/user-settings';
import { userSettingColumns, type UserSettingName } from '../lib/users/user-settings';
import type { Handler, HandlerMap } from './types';

/** Changes the requester's own settings. */
export const updateSettings: Handler<'update-settings'> = async ({ params, services, user }) => {
  const settings: Partial<Record<UserSettingName, string | number | boolean>> = {};
  for (const name of Object.keys(userSettingColumns) as UserSettingName[]) {
    const value = params[name];
    if (value !== undefined) settings[name] = value;
  }
  await doUpdateUserSettings(services, user, { fullName: params.full_name, settings });
  return {};
};

/** The operations of this area, by operationId. */
export const settingsHandlers = {
  'update-settings': updateSettings,
} satisfies Partial<HandlerMap>;

// The user's personal settings: API names, columns, and the initial state.
import type { User } from '../../../generated/prisma/sqlite/client';
import type { StateProvider } from '../state';

/** Each personal setting's API name and column. */
export const userSettingColumns = {
  email_address_visibility: 'emailAddressVisibility',
  send_stream_typing_notifications: 'sendStreamTypingNotifications',
  send_private_typing_notifications: 'sendPrivateTypingNotifications',
  send_read_receipts: 'sendReadReceipts',
  enable_drafts_synchronization: 'enableDraftsSynchronization',
  presence_enabled: 'presenceEnabled',
  timezone: 'timezone',
  default_language: 'defaultLanguage',
  twenty_four_hour_time: 'twentyFourHourTime',
  enter_sends: 'enterSends',
} as const satisfies Record<string, keyof User>;

/** A personal setting's API name. */
export type UserSettingName = keyof typeof userSettingColumns;

/** The user's settings as the API names them. */
export function presentUserSettings(user: User): Record<UserSettingName, unknown> {
  return Object.fromEntries(
    Object.entries(userSettingColumns).map(([name, column]) => [name, user[column]]),
  ) as Record<UserSettingName, unknown>;
}

/** `user_settings`: the user's personal settings. */
export const userSettingsState: StateProvider = async ({ user }) => ({
  user_settings: presentUserSettings(user),
});

// The user's personal settings: for each, its API name, its column, the value
// a new account gets, and which legacy event type carried it before the
// `user_settings` object (clients without the `user_settings_object`
// capability still read those copies at the top level of /register and in
// update_display_settings / update_global_notifications events).
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { StateProvider } from '../state';
import { emojisetChoices, languages, notificationSounds } from './settings-choices';

/** The legacy event type a setting belonged to, if any. */
export type LegacySettingGroup = 'display' | 'notifications';

/** One personal setting. */
interface SettingSpec {
  column: keyof User;
  /** What a new account gets (the column's default). */
  initial: boolean | number | string;
  legacy?: LegacySettingGroup;
}

const display = 'display' as const;
const notifications = 'notifications' as const;

/** Every stored personal setting, by API name. */
export const userSettingSpecs = {
  // Display settings, once changed through PATCH /settings/display.
  color_scheme: { column: 'colorScheme', initial: 1, legacy: display },
  default_language: { column: 'defaultLanguage', initial: 'en', legacy: display },
  web_home_view: { column: 'webHomeView', initial: 'inbox', legacy: display },
  demote_inactive_streams: { column: 'demoteInactiveStreams', initial: 1, legacy: display },
  emojiset: { column: 'emojiset', initial: 'google', legacy: display },
  enable_drafts_synchronization: {
    column: 'enableDraftsSynchronization',
    initial: true,
    legacy: display,
  },
  enter_sends: { column: 'enterSends', initial: false, legacy: display },
  fluid_layout_width: { column: 'fluidLayoutWidth', initial: false, legacy: display },
  high_contrast_mode: { column: 'highContrastMode', initial: false, legacy: display },
  left_side_userlist: { column: 'leftSideUserlist', initial: false, legacy: display },
  starred_message_counts: { column: 'starredMessageCounts', initial: true, legacy: display },
  translate_emoticons: { column: 'translateEmoticons', initial: false, legacy: display },
  twenty_four_hour_time: { column: 'twentyFourHourTime', initial: false, legacy: display },
  timezone: { column: 'timezone', initial: '', legacy: display },
  // Notification settings, once changed through PATCH /settings/notifications.
  desktop_icon_count_display: {
    column: 'desktopIconCountDisplay',
    initial: 1,
    legacy: notifications,
  },
  email_notifications_batching_period_seconds: {
    column: 'emailNotificationsBatchingPeriodSeconds',
    initial: 120,
    legacy: notifications,
  },
  enable_desktop_notifications: {
    column: 'enableDesktopNotifications',
    initial: true,
    legacy: notifications,
  },
  enable_digest_emails: { column: 'enableDigestEmails', initial: true, legacy: notifications },
  enable_login_emails: { column: 'enableLoginEmails', initial: true, legacy: notifications },
  enable_marketing_emails: {
    column: 'enableMarketingEmails',
    initial: true,
    legacy: notifications,
  },
  enable_offline_email_notifications: {
    column: 'enableOfflineEmailNotifications',
    initial: true,
    legacy: notifications,
  },
  enable_offline_push_notifications: {
    column: 'enableOfflinePushNotifications',
    initial: true,
    legacy: notifications,
  },
  enable_online_push_notifications: {
    column: 'enableOnlinePushNotifications',
    initial: true,
    legacy: notifications,
  },
  enable_sounds: { column: 'enableSounds', initial: true, legacy: notifications },
  enable_stream_audible_notifications: {
    column: 'enableStreamAudibleNotifications',
    initial: false,
    legacy: notifications,
  },
  enable_stream_desktop_notifications: {
    column: 'enableStreamDesktopNotifications',
    initial: false,
    legacy: notifications,
  },
  enable_stream_email_notifications: {
    column: 'enableStreamEmailNotifications',
    initial: false,
    legacy: notifications,
  },
  enable_stream_push_notifications: {
    column: 'enableStreamPushNotifications',
    initial: false,
    legacy: notifications,
  },
  message_content_in_email_notifications: {
    column: 'messageContentInEmailNotifications',
    initial: true,
    legacy: notifications,
  },
  notification_sound: { column: 'notificationSound', initial: 'zulip', legacy: notifications },
  pm_content_in_desktop_notifications: {
    column: 'pmContentInDesktopNotifications',
    initial: true,
    legacy: notifications,
  },
  presence_enabled: { column: 'presenceEnabled', initial: true, legacy: notifications },
  realm_name_in_email_notifications_policy: {
    column: 'realmNameInEmailNotificationsPolicy',
    initial: 1,
    legacy: notifications,
  },
  wildcard_mentions_notify: {
    column: 'wildcardMentionsNotify',
    initial: true,
    legacy: notifications,
  },
  // Settings that only ever lived in the user_settings object.
  allow_private_data_export: { column: 'allowPrivateDataExport', initial: false },
  automatically_follow_topics_policy: { column: 'automaticallyFollowTopicsPolicy', initial: 3 },
  automatically_follow_topics_where_mentioned: {
    column: 'automaticallyFollowTopicsWhereMentioned',
    initial: true,
  },
  automatically_unmute_topics_in_muted_streams_policy: {
    column: 'automaticallyUnmuteTopicsInMutedStreamsPolicy',
    initial: 2,
  },
  display_emoji_reaction_users: { column: 'displayEmojiReactionUsers', initial: true },
  email_address_visibility: { column: 'emailAddressVisibility', initial: 1 },
  enable_followed_topic_audible_notifications: {
    column: 'enableFollowedTopicAudibleNotifications',
    initial: true,
  },
  enable_followed_topic_desktop_notifications: {
    column: 'enableFollowedTopicDesktopNotifications',
    initial: true,
  },
  enable_followed_topic_email_notifications: {
    column: 'enableFollowedTopicEmailNotifications',
    initial: true,
  },
  enable_followed_topic_push_notifications: {
    column: 'enableFollowedTopicPushNotifications',
    initial: true,
  },
  enable_followed_topic_wildcard_mentions_notify: {
    column: 'enableFollowedTopicWildcardMentionsNotify',
    initial: true,
  },
  hide_ai_features: { column: 'hideAiFeatures', initial: false },
  receives_typing_notifications: { column: 'receivesTypingNotifications', initial: true },
  resolved_topic_notice_auto_read_policy: {
    column: 'resolvedTopicNoticeAutoReadPolicy',
    initial: 'except_followed',
  },
  send_private_typing_notifications: { column: 'sendPrivateTypingNotifications', initial: true },
  send_read_receipts: { column: 'sendReadReceipts', initial: true },
  send_stream_typing_notifications: { column: 'sendStreamTypingNotifications', initial: true },
  user_list_style: { column: 'userListStyle', initial: 2 },
  web_animate_image_previews: { column: 'webAnimateImagePreviews', initial: 'on_hover' },
  web_channel_default_view: { column: 'webChannelDefaultView', initial: 1 },
  web_escape_navigates_to_home_view: { column: 'webEscapeNavigatesToHomeView', initial: true },
  web_font_size_px: { column: 'webFontSizePx', initial: 16 },
  web_left_sidebar_show_channel_folders: {
    column: 'webLeftSidebarShowChannelFolders',
    initial: true,
  },
  web_left_sidebar_unreads_count_summary: {
    column: 'webLeftSidebarUnreadsCountSummary',
    initial: true,
  },
  web_line_height_percent: { column: 'webLineHeightPercent', initial: 140 },
  web_mark_read_on_scroll_policy: { column: 'webMarkReadOnScrollPolicy', initial: 1 },
  web_navigate_to_sent_message: { column: 'webNavigateToSentMessage', initial: true },
  web_stream_unreads_count_display_policy: {
    column: 'webStreamUnreadsCountDisplayPolicy',
    initial: 2,
  },
  web_suggest_update_timezone: { column: 'webSuggestUpdateTimezone', initial: true },
} as const satisfies Record<string, SettingSpec>;

/** A personal setting's API name. */
export type UserSettingName = keyof typeof userSettingSpecs;

/** A setting's value as the API and the database hold it. */
export type UserSettingValue = boolean | number | string;

/** The names of every stored personal setting. */
export const userSettingNames = Object.keys(userSettingSpecs) as UserSettingName[];

/** The legacy event type of `name`, if it had one. */
export function legacyGroupOf(name: UserSettingName): LegacySettingGroup | undefined {
  return (userSettingSpecs[name] as SettingSpec).legacy;
}

/** The lists of choices every copy of the settings carries. */
function choices() {
  return { emojiset_choices: emojisetChoices, available_notification_sounds: notificationSounds };
}

/** The user's settings as the API names them, with the lists of choices. */
export function presentUserSettings(user: User): Record<string, unknown> {
  return {
    ...Object.fromEntries(
      userSettingNames.map((name) => [name, user[userSettingSpecs[name].column]]),
    ),
    ...choices(),
  };
}

/** The settings of one legacy group, as top-level keys of /register. */
function legacySettings(user: User, group: LegacySettingGroup): Record<string, unknown> {
  return Object.fromEntries(
    userSettingNames
      .filter((name) => legacyGroupOf(name) === group)
      .map((name) => [name, user[userSettingSpecs[name].column]]),
  );
}

/** The language's own name, which default_language events carry. */
export function languageName(code: string): string {
  return languages[code] ?? code;
}

/** `user_settings`: the user's personal settings. */
export const userSettingsState: StateProvider = async ({ user }) => ({
  user_settings: presentUserSettings(user),
});

/**
 * `update_display_settings`, for clients without `user_settings_object`: the
 * display settings at the top level, with the emoji sets (and, as Zulip's
 * description lists it there, whether typing notifications are shown).
 */
export const legacyDisplaySettingsState: StateProvider = async ({ user, clientCapabilities }) =>
  clientCapabilities.user_settings_object === true
    ? {}
    : {
        ...legacySettings(user, 'display'),
        emojiset_choices: emojisetChoices,
        receives_typing_notifications: user.receivesTypingNotifications,
      };

/** `update_global_notifications`, for clients without `user_settings_object`: the notification settings at the top level. */
export const legacyNotificationSettingsState: StateProvider = async ({
  user,
  clientCapabilities,
}) =>
  clientCapabilities.user_settings_object === true
    ? {}
    : {
        ...legacySettings(user, 'notifications'),
        available_notification_sounds: notificationSounds,
      };

/** The settings an organization sets defaults for: all but the time zone, which is the person's own. */
export const defaultableSettingNames = userSettingNames.filter((name) => name !== 'timezone');

/**
 * The organization's defaults that differ from the server's, by API name. A
 * value the stored text holds for a setting no longer known is left out.
 */
export function realmSettingOverrides(
  realm: Pick<Realm, 'userSettingsDefaults'>,
): Partial<Record<UserSettingName, UserSettingValue>> {
  const stored = JSON.parse(realm.userSettingsDefaults) as Record<string, UserSettingValue>;
  return Object.fromEntries(
    defaultableSettingNames.filter((name) => name in stored).map((name) => [name, stored[name]]),
  );
}

/** The columns a new account of `realm` starts with where the organization chose a default. */
export function newUserSettingColumns(
  realm: Pick<Realm, 'userSettingsDefaults'>,
): Partial<Record<keyof User, UserSettingValue>> {
  return Object.fromEntries(
    Object.entries(realmSettingOverrides(realm)).map(([name, value]) => [
      userSettingSpecs[name as UserSettingName].column,
      value,
    ]),
  );
}

/** `realm_user_settings_defaults`: what a new account of the organization gets. */
export const realmUserSettingsDefaultsState: StateProvider = async ({ realm }) => ({
  realm_user_settings_defaults: {
    ...Object.fromEntries(
      defaultableSettingNames.map((name) => [name, userSettingSpecs[name].initial]),
    ),
    ...realmSettingOverrides(realm),
    ...choices(),
  },
});

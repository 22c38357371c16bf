// Every initial-state provider, by the event type that selects it.
import { draftsState } from './drafts';
import { scheduledMessagesState } from './scheduled-messages';
import { navigationViewsState } from './navigation-views';
import { presenceState } from './presence';
import { messageState, streamState, subscriptionState, unreadState } from './channel-state';
import type { StateProvider } from './state';
import { realmState, realmUserState } from './state-core';
import { realmEmojiState } from './realm-emoji';
import { customProfileFieldsState } from './profile-fields';
import { userGroupState } from './user-groups';
import { userSettingsState } from './user-settings';
import { userStatusState } from './user-status';

/** Providers by event type, in the order their fields are merged. */
export const stateProviders: Record<string, StateProvider> = {
  realm: realmState,
  realm_user: realmUserState,
  user_settings: userSettingsState,
  user_group: userGroupState,
  user_status: userStatusState,
  custom_profile_fields: customProfileFieldsState,
  navigation_views: navigationViewsState,
  drafts: draftsState,
  scheduled_messages: scheduledMessagesState,
  presence: presenceState,
  subscription: subscriptionState,
  stream: streamState,
  message: messageState,
  update_message_flags: unreadState,
  realm_emoji: realmEmojiState,
};

// Every initial-state provider, by the event type that selects it.
import { draftsState } from '../lib/messages/drafts';
import { scheduledMessagesState } from '../lib/messages/scheduled-messages';
import { navigationViewsState } from '../lib/users/navigation-views';
import { presenceState } from '../lib/users/presence';
import { messageState, streamState, subscriptionState, unreadState } from '../lib/channels/state';
import type { StateProvider } from '../lib/state';
import { realmState, realmUserState } from '../lib/users/state';
import { realmEmojiState } from '../lib/emoji/realm-emoji';
import { customProfileFieldsState } from '../lib/users/profile-fields';
import { userGroupState } from '../lib/groups/user-groups';
import { userSettingsState } from '../lib/users/user-settings';
import { userStatusState } from '../lib/users/user-status';

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

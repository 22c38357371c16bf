// Initial state of the users area: the organization's users (`realm_user`),
// the bots the user administers, and the user's own settings, statuses,
// profile fields, views, presence and devices.
import { realmGroupSettingRules, realmGroupSettings } from '../groups/group-settings';
import { groupsOfUser } from '../groups/permissions';
import { Role } from '../constants';
import type { StateProvider, StateProviders } from '../state';
import { loadBotDetails, presentBot } from './bots';
import { alertWordsState } from './alert-words';
import { mutedUsersState } from './muted-users';
import { navigationViewsState } from './navigation-views';
import { onboardingStepsState } from './onboarding-steps';
import { presenceState } from './presence';
import { customProfileFieldsState, profileDataOf } from './profile-fields';
import {
  legacyDisplaySettingsState,
  legacyNotificationSettingsState,
  realmUserSettingsDefaultsState,
  userSettingsState,
} from './user-settings';
import { userStatusState } from './user-status';
import { mutedTopicsState, userTopicsState } from './user-topics';
import { accessibleUserIds, unknownUser } from './user-access';
import { avatarUrl, avatarUrlMedium, presentUser, realmHost } from './users';

/**
 * `realm_user`: every user of the organization (active humans and bots in
 * `realm_users`, deactivated ones in `realm_non_active_users`, humans with
 * their custom profile field values), and the user's own identity and the
 * permissions clients show or hide features by. A guest the organization
 * restricts gets only the users they may access, and, unless their client
 * declares `user_list_incomplete`, an "Unknown user" in `realm_users` for
 * each of the others.
 */
export const realmUserState: StateProvider = async ({
  db,
  realm,
  user,
  externalUrl,
  clientGravatar,
  clientCapabilities,
}) => {
  const host = realmHost(realm, externalUrl);
  const all = await db.user.findMany({ where: { realmId: realm.id }, orderBy: { id: 'asc' } });
  const accessible = await accessibleUserIds(db, realm, user);
  const canSee = (u: (typeof all)[number]) => !accessible || u.isBot || accessible.has(u.id);
  const users = all.filter(canSee);
  // Clients without user_list_incomplete get an "Unknown user" for each hidden one.
  const unknown =
    clientCapabilities.user_list_incomplete === true
      ? []
      : all.filter((u) => !canSee(u)).map((u) => unknownUser(u.id, host));
  const profileData = await profileDataOf(
    db,
    users.filter((u) => !u.isBot).map((u) => u.id),
  );
  const present = (u: (typeof users)[number]) =>
    presentUser(u, user, host, { clientGravatar, profileData });
  const me = presentUser(user, user, host, { clientGravatar });
  const groups = await groupsOfUser(db, user.id);
  const holds = (setting: keyof typeof realmGroupSettings) =>
    user.isActive &&
    (realmGroupSettingRules[setting].allowEveryone || user.role !== Role.GUEST) &&
    groups.has(realm[realmGroupSettings[setting]]);
  const canCreatePublic = holds('can_create_public_channel_group');
  const canCreatePrivate = holds('can_create_private_channel_group');
  const canCreateWebPublic = holds('can_create_web_public_channel_group');
  return {
    realm_users: [...users.filter((u) => u.isActive).map(present), ...unknown].sort(
      (a, b) => a.user_id - b.user_id,
    ),
    realm_non_active_users: users.filter((u) => !u.isActive).map(present),
    // System bots shared by every organization of a server: this server has none.
    cross_realm_bots: [],
    user_id: user.id,
    email: me.email,
    delivery_email: user.email,
    full_name: user.fullName,
    is_owner: user.role === Role.OWNER,
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_moderator: user.role <= Role.MODERATOR,
    is_guest: user.role === Role.GUEST,
    is_billing_admin: false,
    avatar_source: user.avatarSource,
    avatar_url: avatarUrl(user, false, true),
    avatar_url_medium: avatarUrlMedium(user),
    can_create_public_streams: canCreatePublic,
    can_create_private_streams: canCreatePrivate,
    can_create_web_public_streams: canCreateWebPublic,
    can_create_streams: canCreatePublic || canCreatePrivate || canCreateWebPublic,
    can_subscribe_other_users: holds('can_add_subscribers_group'),
    can_invite_others_to_realm: holds('can_invite_users_group'),
  };
};

/** `realm_bot`: the bots the user administers (every bot of the organization for administrators). */
export const realmBotState: StateProvider = async ({ db, realm, user, externalUrl }) => {
  const bots = await db.user.findMany({
    where: {
      realmId: realm.id,
      isBot: true,
      ...(user.role <= Role.ADMINISTRATOR ? {} : { botOwnerId: user.id }),
    },
    orderBy: { id: 'asc' },
  });
  const host = realmHost(realm, externalUrl);
  const details = await loadBotDetails(db, bots);
  return { realm_bots: bots.map((bot) => presentBot(bot, host, details)) };
};

/** The users area's register state. */
export const userStateProviders = {
  realm_user: realmUserState,
  realm_bot: realmBotState,
  user_settings: userSettingsState,
  update_display_settings: legacyDisplaySettingsState,
  update_global_notifications: legacyNotificationSettingsState,
  realm_user_settings_defaults: realmUserSettingsDefaultsState,
  user_status: userStatusState,
  custom_profile_fields: customProfileFieldsState,
  navigation_views: navigationViewsState,
  presence: presenceState,
  // No Zoom account can be linked on this server.
  video_calls: async () => ({ has_zoom_token: false }),
  onboarding_steps: onboardingStepsState,
  // Devices registered for end-to-end encrypted push notifications: none here.
  push_device: async () => ({ push_devices: {} }),
} satisfies StateProviders;

/**
 * Muted and followed topics, muted users and alert words. `muted_topics` is
 * left out when `user_topic` is asked for by name, as Zulip does.
 */
export const userTopicStateProviders = {
  alert_words: alertWordsState,
  muted_users: mutedUsersState,
  user_topic: userTopicsState,
  muted_topics: mutedTopicsState,
} satisfies StateProviders;

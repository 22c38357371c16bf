// Initial state of the users area: the organization's users (`realm_user`),
// and the user's own settings, statuses, profile fields, views and presence.
import { Role } from '../constants';
import type { StateProvider, StateProviders } from '../state';
import { navigationViewsState } from './navigation-views';
import { presenceState } from './presence';
import { customProfileFieldsState, profileDataOf } from './profile-fields';
import { userSettingsState } from './user-settings';
import { userStatusState } from './user-status';
import { presentUser, realmHost } from './users';

/**
 * `realm_user`: every user of the organization (active humans and bots in
 * `realm_users`, deactivated ones in `realm_non_active_users`, humans with
 * their custom profile field values), and the user's own identity.
 */
export const realmUserState: StateProvider = async ({
  db,
  realm,
  user,
  externalUrl,
  clientGravatar,
}) => {
  const host = realmHost(realm, externalUrl);
  const users = await db.user.findMany({ where: { realmId: realm.id }, orderBy: { id: 'asc' } });
  const profileData = await profileDataOf(
    db,
    users.filter((u) => !u.isBot).map((u) => u.id),
  );
  const present = (u: (typeof users)[number]) =>
    presentUser(u, user, host, { clientGravatar, profileData });
  const me = presentUser(user, user, host, { clientGravatar });
  return {
    realm_users: users.filter((u) => u.isActive).map(present),
    realm_non_active_users: users.filter((u) => !u.isActive).map(present),
    user_id: user.id,
    email: me.email,
    delivery_email: user.email,
    full_name: user.fullName,
    role: user.role,
    is_owner: user.role === Role.OWNER,
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_moderator: user.role <= Role.MODERATOR,
    is_guest: user.role === Role.GUEST,
    avatar_url: me.avatar_url,
    avatar_version: user.avatarVersion,
    can_create_users: user.canCreateUsers,
    can_change_user_emails: user.canChangeUserEmails,
  };
};

/** The users area's register state. */
export const userStateProviders = {
  realm_user: realmUserState,
  user_settings: userSettingsState,
  user_status: userStatusState,
  custom_profile_fields: customProfileFieldsState,
  navigation_views: navigationViewsState,
  presence: presenceState,
} satisfies StateProviders;

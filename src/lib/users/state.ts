// Initial state of the organization (`realm`) and of its users (`realm_user`).
import { presentUser, realmHost } from './users';
import { presentRealmState } from '../realm/realm';
import { profileDataOf } from './profile-fields';
import type { StateProvider } from '../state';
import { Role } from '../constants';

/** `realm`: the organization's settings and the server's limits. */
export const realmState: StateProvider = async ({ db, realm, services }) => ({
  ...(await presentRealmState(db, realm, services.config.externalUrl)),
  // The default, for new users, of who may see their real email address.
  realm_email_address_visibility: realm.emailAddressVisibility,
});

/**
 * `realm_user`: every user of the organization (active humans and bots in
 * `realm_users`, deactivated ones in `realm_non_active_users`, humans with
 * their custom profile field values), and the user's own identity.
 */
export const realmUserState: StateProvider = async ({ db, realm, user, services, clientGravatar }) => {
  const host = realmHost(realm, services.config.externalUrl);
  const users = await db.user.findMany({ where: { realmId: realm.id }, orderBy: { id: 'asc' } });
  const profileData = await profileDataOf(
    db,
    users.filter((u) => !u.isBot).map((u) => u.id),
  );
  const present = (u: (typeof users)[number]) => presentUser(u, user, host, { clientGravatar, profileData });
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

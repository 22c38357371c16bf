// Initial state of the organization (`realm`) and of the user themself.
import { hostOf, presentUser } from './users';
import { presentRealmState } from './realm';
import type { StateProvider } from './state';
import { Role } from './constants';

/** `realm`: the organization's settings and the server's limits. */
export const realmState: StateProvider = ({ db, realm, services }) => presentRealmState(db, realm, services.config.externalUrl);

/** `realm_user`: every user of the organization, and the user's own identity. */
export const realmUserState: StateProvider = async ({ db, realm, user, services, clientGravatar }) => {
  const host = hostOf(services.config.externalUrl);
  const users = await db.user.findMany({ where: { realmId: realm.id, isActive: true }, orderBy: { id: 'asc' } });
  const me = presentUser(user, user, host, { clientGravatar });
  return {
    realm_users: users.filter((u) => !u.isBot).map((u) => presentUser(u, user, host, { clientGravatar })),
    realm_non_active_users: [],
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

// How users appear to each other: the API email, email visibility and avatars.
import { createHash } from 'node:crypto';
import type { User } from '../../generated/prisma/sqlite/client';
import { Role } from './constants';

/** Email visibility settings: who may see a user's real address. */
export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

/** Whether `viewer` may see `target`'s real (delivery) email address. */
export function canSeeDeliveryEmail(viewer: Pick<User, 'id' | 'role'>, target: Pick<User, 'id' | 'isBot' | 'emailAddressVisibility'>): boolean {
  if (viewer.id === target.id || target.isBot) return true;
  switch (target.emailAddressVisibility) {
    case EmailVisibility.EVERYONE:
      return true;
    case EmailVisibility.MEMBERS:
      return viewer.role <= Role.MEMBER;
    case EmailVisibility.MODERATORS:
      return viewer.role <= Role.MODERATOR;
    case EmailVisibility.ADMINS:
      return viewer.role <= Role.ADMINISTRATOR;
    default:
      return false;
  }
}

/** The host of an address such as http://chat.example.com:9991, for placeholder emails. */
export function hostOf(externalUrl: string): string {
  return new URL(externalUrl).host;
}

/** The address the API shows in `email`: the real one when everyone may see it, else `user{id}@{host}`. */
export function apiEmail(target: Pick<User, 'id' | 'email' | 'isBot' | 'emailAddressVisibility'>, host: string): string {
  return target.isBot || target.emailAddressVisibility === EmailVisibility.EVERYONE ? target.email : `user${target.id}@${host}`;
}

/** The avatar address, or null when the client computes gravatars itself and may see the real email. */
export function avatarUrl(target: Pick<User, 'email' | 'avatarSource' | 'avatarVersion' | 'id' | 'realmId'>, clientGravatar: boolean, emailVisible: boolean): string | null {
  if (target.avatarSource === 'U') return `/user_avatars/${target.realmId}/${target.id}.png?version=${target.avatarVersion}`;
  if (clientGravatar && emailVisible) return null;
  const digest = createHash('md5').update(target.email.trim().toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${digest}?d=identicon&version=${target.avatarVersion}`;
}

/** The user object of the API (Part 2.4), as `viewer` may see it. */
export function presentUser(target: User, viewer: Pick<User, 'id' | 'role'>, host: string, options: { clientGravatar: boolean }) {
  const visible = canSeeDeliveryEmail(viewer, target);
  return {
    user_id: target.id,
    delivery_email: visible ? target.email : null,
    email: apiEmail(target, host),
    full_name: target.fullName,
    date_joined: target.dateJoined.toISOString(),
    is_active: target.isActive,
    is_owner: target.role === Role.OWNER,
    is_admin: target.role <= Role.ADMINISTRATOR,
    is_guest: target.role === Role.GUEST,
    is_bot: target.isBot,
    bot_type: target.botType,
    ...(target.isBot ? { bot_owner_id: target.botOwnerId } : {}),
    role: target.role as 100 | 200 | 300 | 400 | 600,
    timezone: target.timezone,
    avatar_url: avatarUrl(target, options.clientGravatar, visible),
    avatar_version: target.avatarVersion,
  };
}

// How users appear to each other: the API email, email visibility and avatars.
import { createHash } from 'node:crypto';
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../constants';
import { avatarImagePath } from './avatars';
import { checkCanAccessUser } from './user-access';

/** Email visibility settings: who may see a user's real address. */
export const EmailVisibility = {
  EVERYONE: 1,
  MEMBERS: 2,
  ADMINS: 3,
  NOBODY: 4,
  MODERATORS: 5,
} as const;

/** Whether `viewer` may see `target`'s real (delivery) email address. */
export function canSeeDeliveryEmail(
  viewer: Pick<User, 'id' | 'role'>,
  target: Pick<User, 'id' | 'isBot' | 'emailAddressVisibility'>,
): boolean {
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

/**
 * `viewers` split by whether they may see `target`'s delivery email: the
 * two audiences of any announcement that shows it to some and not others.
 */
export function byDeliveryEmailAccess<V extends Pick<User, 'id' | 'role'>>(
  viewers: Iterable<V>,
  target: Pick<User, 'id' | 'isBot' | 'emailAddressVisibility'>,
): { seeing: V[]; others: V[] } {
  const seeing: V[] = [];
  const others: V[] = [];
  for (const viewer of viewers)
    (canSeeDeliveryEmail(viewer, target) ? seeing : others).push(viewer);
  return { seeing, others };
}

/** The last address `hostOf` parsed and its host: the server's own address, asked on every request. */
let lastHost = { url: '', host: '' };

/** The host of an address such as http://chat.example.com:9991, for placeholder emails. */
export function hostOf(externalUrl: string): string {
  if (lastHost.url !== externalUrl || externalUrl === '')
    lastHost = { url: externalUrl, host: new URL(externalUrl).host };
  return lastHost.host;
}

/** The organization's host (`sub.example.com`, or the server's host for the root organization), for placeholder emails. */
export function realmHost(realm: Pick<Realm, 'stringId'>, externalUrl: string): string {
  const host = hostOf(externalUrl);
  return realm.stringId ? `${realm.stringId}.${host}` : host;
}

/** The address the API shows in `email`: the real one when everyone may see it, else `user{id}@{host}`. */
export function apiEmail(
  target: Pick<User, 'id' | 'email' | 'isBot' | 'emailAddressVisibility'>,
  host: string,
): string {
  return target.isBot || target.emailAddressVisibility === EmailVisibility.EVERYONE
    ? target.email
    : `user${target.id}@${host}`;
}

/** What the address of a user's avatar is made of. */
type AvatarFields = Pick<
  User,
  'email' | 'avatarSource' | 'avatarVersion' | 'avatarHash' | 'id' | 'realmId'
>;

/** Gravatar digests of recent email addresses (a user's own answer asks for theirs each time). */
const gravatarDigests = new Map<string, string>();

/** The MD5 digest Gravatar names the picture of `email` by. */
function gravatarDigest(email: string): string {
  let digest = gravatarDigests.get(email);
  if (digest === undefined) {
    digest = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    if (gravatarDigests.size >= 10_000) gravatarDigests.clear();
    gravatarDigests.set(email, digest);
  }
  return digest;
}

/** The Gravatar address of `target`, a picture drawn from their email when they have none there. */
function gravatarUrl(target: AvatarFields): string {
  const digest = gravatarDigest(target.email);
  return `https://secure.gravatar.com/avatar/${digest}?d=identicon&version=${target.avatarVersion}`;
}

/** The avatar address, or null when the client computes gravatars itself and may see the real email. */
export function avatarUrl(
  target: AvatarFields,
  clientGravatar: boolean,
  emailVisible: boolean,
): string | null {
  if (target.avatarSource === 'U' && target.avatarHash)
    return `${avatarImagePath(target.realmId, target.avatarHash, false)}?version=${target.avatarVersion}`;
  if (clientGravatar && emailVisible) return null;
  return gravatarUrl(target);
}

/** The larger (500-pixel) avatar address, for the user's own state; never null. */
export function avatarUrlMedium(target: AvatarFields): string {
  if (target.avatarSource === 'U' && target.avatarHash)
    return `${avatarImagePath(target.realmId, target.avatarHash, true)}?version=${target.avatarVersion}`;
  return `${gravatarUrl(target)}&s=500`;
}

/**
 * The members every user object has but `bot_type`, as `viewer` may see them.
 * The user objects are built as this one literal with their other members
 * set after it, not spread in: a spread makes V8 copy member by member, and
 * lists of thousands of users are built this way.
 */
function userFields(
  target: User,
  viewer: Pick<User, 'id' | 'role'>,
  host: string,
  clientGravatar: boolean,
) {
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
    role: target.role as 100 | 200 | 300 | 400 | 600,
    timezone: target.timezone,
    avatar_url: avatarUrl(target, clientGravatar, visible),
    avatar_version: target.avatarVersion,
  };
}

type BotType = 1 | 2 | 3 | 4 | null;

/** The user object of the API (Part 2.4). */
export type PresentedUser = ReturnType<typeof userFields> & {
  bot_type: BotType;
  bot_owner_id?: number | null;
  profile_data?: ProfileData;
};

/** The user object of the API (Part 2.4), as `viewer` may see it. */
export function presentUser(
  target: User,
  viewer: Pick<User, 'id' | 'role'>,
  host: string,
  options: { clientGravatar: boolean; profileData?: Map<number, ProfileData> },
): PresentedUser {
  const user = userFields(target, viewer, host, options.clientGravatar) as PresentedUser;
  user.bot_type = target.botType as BotType;
  if (target.isBot) user.bot_owner_id = target.botOwnerId;
  else if (options.profileData) user.profile_data = options.profileData.get(target.id) ?? {};
  return user;
}

/**
 * The user as they see themself (GET /users/me): as Zulip has it, only a
 * bot's names its type and owner; every one has its profile data and the
 * highest message ID they have received.
 */
export function presentOwnUser(
  user: User,
  host: string,
  profileData: ProfileData,
  maxMessageId: number,
) {
  // One sees one's own delivery email.
  const me = userFields(user, user, host, false) as Omit<
    ReturnType<typeof userFields>,
    'delivery_email'
  > & {
    delivery_email: string;
    bot_type?: BotType;
    bot_owner_id?: number | null;
    profile_data: ProfileData;
    max_message_id: number;
  };
  if (user.isBot) {
    me.bot_type = user.botType as BotType;
    me.bot_owner_id = user.botOwnerId;
  }
  me.profile_data = profileData;
  me.max_message_id = maxMessageId;
  return me;
}

/** One user's custom profile field values, keyed by field ID (Part 2.4 `profile_data`). */
export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

/** Whether `actor` may administer `target`: administrators may, and so may the owner of a bot. */
export function canAdminUser(
  actor: Pick<User, 'id' | 'role'>,
  target: Pick<User, 'botOwnerId'>,
): boolean {
  return target.botOwnerId === actor.id || actor.role <= Role.ADMINISTRATOR;
}

/** What looking a user up tolerates, after Zulip's access_user_by_id. */
export interface UserAccess {
  allowDeactivated?: boolean;
  allowBots?: boolean;
  /** Whether the requester must be allowed to administer the target. */
  forAdmin: boolean;
  /**
   * Whether a guest may look up a user the organization hides from them
   * (can_access_all_users_group); by default they get "Insufficient permission".
   */
  ignoreVisibility?: boolean;
}

async function checkUserAccess(
  db: Db,
  actor: User,
  target: User | null,
  access: UserAccess,
): Promise<User> {
  if (!target || (target.isBot && !access.allowBots)) throw new ApiError('No such user');
  if (!target.isActive && !access.allowDeactivated) throw new ApiError('User is deactivated');
  if (access.forAdmin) {
    if (!canAdminUser(actor, target)) throw new ApiError('Insufficient permission');
  } else if (!access.ignoreVisibility) await checkCanAccessUser(db, actor, target);
  return target;
}

/** The user `userId` of the actor's organization, or Zulip's error ("No such user", ...). */
export async function accessUserById(
  db: Db,
  actor: User,
  userId: number,
  access: UserAccess,
): Promise<User> {
  const target = await db.user.findFirst({ where: { id: userId, realmId: actor.realmId } });
  return checkUserAccess(db, actor, target, access);
}

/**
 * The user named by `email`: their real address, when the actor may see it,
 * or the address the API shows for them (the placeholder `user{id}@{host}`).
 */
export async function accessUserByEmail(
  db: Db,
  actor: User,
  email: string,
  host: string,
  access: UserAccess,
): Promise<User> {
  const lower = email.toLowerCase();
  let target = await db.user.findUnique({
    where: { realmId_emailLower: { realmId: actor.realmId, emailLower: lower } },
  });
  if (target && !canSeeDeliveryEmail(actor, target)) target = null;
  if (!target) {
    const placeholder = /^user(\d+)@(.+)$/.exec(lower);
    if (placeholder && placeholder[2] === host.toLowerCase()) {
      target = await db.user.findFirst({
        where: { id: Number(placeholder[1]), realmId: actor.realmId },
      });
    }
  }
  return checkUserAccess(db, actor, target, access);
}

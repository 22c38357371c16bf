// Invitations: reading them, who may do what with them, the invites_changed
// audience, and the get-invites presenter. An invitation is to one email
// address (used once) or a reusable link (until it expires or is revoked);
// both are rows of Invite, told apart by whether they have an email address.
import { randomBytes } from 'node:crypto';
import type { Invite, Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role, SystemGroup } from '../constants';
import { systemGroupId } from '../groups/group-settings';
import { userHoldsPermission, userHoldsRealmPermission } from '../groups/permissions';
import { realmUrl } from '../realm/realms';

/** Invite.status values. */
export const InviteStatus = { ACTIVE: 0, USED: 1, REVOKED: 2 } as const;

/** The roles an invitation may give, as the API numbers them. */
export const INVITE_AS_VALUES: number[] = Object.values(Role);

/** How long an invitation lasts when the request does not say: ten days, as in Zulip. */
export const DEFAULT_INVITE_EXPIRY_MINUTES = 10 * 24 * 60;

/** The span the daily invitation limit (INVITATIONS_PER_DAY) counts over: the last 24 hours. */
export const INVITATION_LIMIT_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How many email invitations the organization sent in the 24 hours before
 * `now`: those whose invitedAt (set when created, moved when resent) falls
 * in that span, whatever became of them since. Reusable links do not count.
 */
export function emailInvitesSentRecently(db: Db, realmId: number, now: Date): Promise<number> {
  return db.invite.count({
    where: {
      realmId,
      email: { not: null },
      invitedAt: { gt: new Date(now.getTime() - INVITATION_LIMIT_WINDOW_MS) },
    },
  });
}

/** A new secret for a join link: 24 random bytes, URL-safe. */
export function newInviteKey(): string {
  return randomBytes(24).toString('base64url');
}

/** The address of the page where an invitation is accepted. */
export function joinUrl(realm: Pick<Realm, 'stringId'>, externalUrl: string, key: string): string {
  return `${realmUrl(realm, externalUrl)}/join/${key}`;
}

/**
 * The addresses of `invitee_emails`: separated by commas or new lines, each
 * possibly written `Name <address>`; blanks dropped, duplicates kept once.
 */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    const email = (named ? named[1] : part).trim();
    if (email) out.add(email);
  }
  return [...out];
}

/** Whether `email` looks like a deliverable address (one @, a dot in the domain, no spaces). */
export function isValidEmail(email: string): boolean {
  return email.length <= 254 && /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/.test(email);
}

/**
 * Role rules of creating, revoking or re-sending an invitation of role
 * `invitedAs`: only owners deal with owner invitations, and only
 * administrators with invitations of moderators and above (`requireAdmin`).
 */
export function checkInviteRole(actor: User, invitedAs: number, requireAdmin: boolean): void {
  if (invitedAs === Role.OWNER && actor.role !== Role.OWNER)
    throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  if (requireAdmin && actor.role > Role.ADMINISTRATOR)
    throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
}

/** Whether inviting as `invitedAs` needs an administrator: moderators and above. */
export function inviteNeedsAdmin(invitedAs: number): boolean {
  return invitedAs <= Role.MODERATOR;
}

/** Whether `actor` may send email invitations (the can_invite_users_group setting). */
export function canInviteByEmail(db: Db, actor: User): Promise<boolean> {
  return userHoldsRealmPermission(db, actor, 'can_invite_users_group');
}

/**
 * Whether `actor` may create reusable invitation links: the
 * create_multiuse_invite_group setting, which this server does not store and
 * which is role:administrators, as in a new Zulip organization.
 */
export async function canCreateInviteLinks(db: Db, actor: User): Promise<boolean> {
  const administrators = await systemGroupId(db, actor.realmId, SystemGroup.ADMINISTRATORS);
  return userHoldsPermission(db, actor, administrators, false);
}

/** Whether an invitation can still be used at `now`. */
export function isUsable(invite: Invite, now: Date): boolean {
  return (
    invite.status === InviteStatus.ACTIVE &&
    (invite.expiresAt === null || invite.expiresAt.getTime() > now.getTime())
  );
}

/** The usable email invitation `id` of `actor`'s organization, or "No such invitation". */
export async function usableEmailInvite(db: Db, actor: User, id: number): Promise<Invite> {
  const invite = await db.invite.findUnique({ where: { id } });
  if (
    !invite ||
    invite.realmId !== actor.realmId ||
    invite.email === null ||
    !isUsable(invite, new Date())
  )
    throw new ApiError('No such invitation');
  return invite;
}

/** The IDs of `JSON` arrays stored in Invite.streamIds and Invite.groupIds. */
export function storedIds(json: string): number[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((v): v is number => Number.isInteger(v)) : [];
}

/** Who receives invites_changed for an invitation of `referrerId`: the administrators and the referrer. */
export async function invitesChangedAudience(
  db: Db,
  realmId: number,
  referrerId: number | null,
): Promise<number[]> {
  const admins = await db.user.findMany({
    where: { realmId, isActive: true, role: { lte: Role.ADMINISTRATOR } },
    select: { id: true },
  });
  const ids = new Set(admins.map((a) => a.id));
  if (referrerId !== null) {
    const referrer = await db.user.findUnique({ where: { id: referrerId } });
    if (referrer?.isActive) ids.add(referrer.id);
  }
  return [...ids];
}

/** A role an invitation may give. */
export type InviteRole = (typeof Role)[keyof typeof Role];

/** One invitation as get-invites shows it. */
export function presentInvite(invite: Invite, realm: Pick<Realm, 'stringId'>, externalUrl: string) {
  const common = {
    id: invite.id,
    invited_by_user_id: invite.referredById,
    invited: Math.floor(invite.invitedAt.getTime() / 1000),
    expiry_date: invite.expiresAt === null ? null : Math.floor(invite.expiresAt.getTime() / 1000),
    invited_as: invite.invitedAs as InviteRole,
  };
  return invite.email === null
    ? { ...common, is_multiuse: true, link_url: joinUrl(realm, externalUrl, invite.key) }
    : {
        ...common,
        is_multiuse: false,
        email: invite.email,
        notify_referrer_on_join: invite.notifyReferrerOnJoin,
      };
}

/**
 * The invitations `actor` controls, usable now, oldest first: every one of
 * the organization for administrators, their own for everyone else.
 */
export async function listInvites(db: Db, actor: User, realm: Realm, externalUrl: string) {
  const now = new Date();
  const rows = await db.invite.findMany({
    where: {
      realmId: actor.realmId,
      status: InviteStatus.ACTIVE,
      OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      ...(actor.role <= Role.ADMINISTRATOR ? {} : { referredById: actor.id }),
    },
    orderBy: { id: 'asc' },
  });
  return rows.map((invite) => presentInvite(invite, realm, externalUrl));
}

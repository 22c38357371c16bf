// Invitations: sending them by email, creating reusable links, revoking both,
// and sending an email invitation again. Each change tells the
// organization's administrators and the invitation's referrer with an
// invites_changed event after the commit; mails leave after the commit too.
// Email invitations, resends included, count against the organization's
// daily limit (INVITATIONS_PER_DAY); reusable links do not.
// Accepting an invitation is in invite-join.ts.
import {
  Prisma,
  type Invite,
  type Realm,
  type Stream,
  type User,
  type UserGroup,
} from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db, type OnCommit } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../../lib/constants';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { userHoldsRealmPermission } from '../../lib/groups/permissions';
import { accessUserGroupForUpdate, requireMemberOrAdmin } from '../../lib/groups/user-groups';
import { invitationMail } from '../../lib/invites/invite-mail';
import { sendOrLog } from '../../lib/mail/mailer';
import {
  canCreateInviteLinks,
  canInviteByEmail,
  checkInviteRole,
  DEFAULT_INVITE_EXPIRY_MINUTES,
  emailInvitesSentRecently,
  inviteNeedsAdmin,
  InviteStatus,
  invitesChangedAudience,
  isValidEmail,
  joinUrl,
  newInviteKey,
  parseInviteeEmails,
  usableEmailInvite,
} from '../../lib/invites/invites';
import type { Services } from '../../services';

/** What creating invitations asks for (POST /invites and POST /invites/multiuse). */
export interface InviteOptions {
  /** Minutes until the invitation expires; null for never; undefined for the default. */
  expiresInMinutes?: number | null;
  invitedAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  /**
   * Welcome Bot's custom message for whoever joins: null follows the
   * organization's setting, "" sends none. Only administrators may set it.
   */
  welcomeMessageCustomText: string | null;
}

/** One address that was not invited: [email, reason, whether its account is deactivated]. */
type InviteeError = [string, string, boolean];

/** 400 INVITATION_FAILED with the addresses that were not invited. */
function invitationFailed(
  msg: string,
  errors: InviteeError[],
  sentInvitations: boolean,
  dailyLimitReached = false,
): ApiError {
  return new ApiError(msg, 'INVITATION_FAILED', 400, {
    errors,
    sent_invitations: sentInvitations,
    license_limit_reached: false,
    daily_limit_reached: dailyLimitReached,
  });
}

/**
 * Refuses, with INVITATION_FAILED and daily_limit_reached, `adding` more
 * email invitations when they would take the organization past
 * INVITATIONS_PER_DAY in the 24 hours before `now`. On PostgreSQL the
 * organization's row is locked first, so that two requests of one
 * organization count one after the other (SQLite runs one write at a time).
 */
async function checkDailyInviteLimit(
  services: Services,
  tx: Db,
  realmId: number,
  adding: number,
  now: Date,
): Promise<void> {
  if (services.db.provider === 'postgresql')
    await queryRows(tx, Prisma.sql`SELECT "id" FROM "Realm" WHERE "id" = ${realmId} FOR UPDATE`);
  const sent = await emailInvitesSentRecently(tx, realmId, now);
  if (sent + adding > services.config.invitationsPerDay)
    throw invitationFailed(
      'To protect users, this server limits how many invitations an organization can send in one day. The limit has been reached, so no invitations were sent.',
      [],
      false,
      true,
    );
}

/** The channels and groups an invitation names, checked as Zulip checks them. */
async function checkTargets(
  tx: Db,
  actor: User,
  options: InviteOptions,
): Promise<{ streams: Stream[]; groups: UserGroup[] }> {
  const access = new ChannelAccess(tx, actor);
  const streams: Stream[] = [];
  for (const id of [...new Set(options.streamIds)]) {
    const stream = await tx.stream.findFirst({ where: { id, realmId: actor.realmId } });
    if (!stream || !(await access.hasContentAccess(stream)))
      throw new ApiError(`Invalid channel ID ${id}. No invites were sent.`);
    streams.push(stream);
  }
  if (
    streams.length > 0 &&
    !(await userHoldsRealmPermission(tx, actor, 'can_add_subscribers_group'))
  )
    throw new ApiError('You do not have permission to subscribe other users to channels.');
  const groups: UserGroup[] = [];
  for (const id of [...new Set(options.groupIds)])
    groups.push(await accessUserGroupForUpdate(tx, actor, id, 'can_add_members_group'));
  return { streams, groups };
}

/**
 * The custom Welcome Bot text an invitation keeps: the request's for an
 * administrator; null (the organization's setting) for anyone else, as Zulip
 * lets only administrators choose it.
 */
function inviteWelcomeText(actor: User, options: InviteOptions): string | null {
  return actor.role <= Role.ADMINISTRATOR ? options.welcomeMessageCustomText : null;
}

/** The expiry of an invitation created at `now`. */
function expiryOf(options: InviteOptions, now: Date): Date | null {
  const minutes =
    options.expiresInMinutes === undefined
      ? DEFAULT_INVITE_EXPIRY_MINUTES
      : options.expiresInMinutes;
  return minutes === null ? null : new Date(now.getTime() + minutes * 60_000);
}

/** Sends the invitation mail of `invite`; a failure is logged, the invitation stays. */
async function mailInvitation(services: Services, invite: Invite, referrer: User, realm: Realm) {
  const mail = invitationMail({
    to: invite.email!,
    referrerName: referrer.fullName,
    referrerEmail: referrer.email,
    realmName: realm.name,
    link: joinUrl(realm, services.config.externalUrl, invite.key),
    expiresAt: invite.expiresAt,
  });
  await sendOrLog(services.mail, services.log, mail, 'invitation mail failed', {
    invite_id: invite.id,
  });
}

/** Publishes invites_changed after the commit, to the administrators and `referrerId`. */
async function announceInvitesChanged(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realmId: number,
  referrerId: number | null,
) {
  const audience = await invitesChangedAudience(tx, realmId, referrerId);
  onCommit(() => services.bus.publish({ type: 'invites_changed' }, audience));
}

/** POST /invites: invites each address of `rawEmails` by email. */
export async function doInviteUsers(
  services: Services,
  actor: User,
  realm: Realm,
  rawEmails: string,
  notifyReferrerOnJoin: boolean,
  options: InviteOptions,
): Promise<void> {
  requireMemberOrAdmin(actor);
  const invites = await services.db.write(async (tx, onCommit) => {
    if (!(await canInviteByEmail(tx, actor))) throw new ApiError('Insufficient permission');
    checkInviteRole(actor, options.invitedAs, inviteNeedsAdmin(options.invitedAs));
    if (!rawEmails) throw new ApiError('You must specify at least one email address.');
    const emails = parseInviteeEmails(rawEmails);
    const { streams, groups } = await checkTargets(tx, actor, options);
    // Every address of the request counts, as in Zulip, even one refused below.
    const now = new Date();
    await checkDailyInviteLimit(services, tx, actor.realmId, emails.length, now);

    const invalid: InviteeError[] = emails
      .filter((e) => !isValidEmail(e))
      .map((e) => [e, 'Invalid address.', false]);
    const valid = emails.filter(isValidEmail);
    const existing = await tx.user.findMany({
      where: { realmId: actor.realmId, emailLower: { in: valid.map((e) => e.toLowerCase()) } },
    });
    const skipped: InviteeError[] = [];
    for (const email of valid) {
      const user = existing.find((u) => u.emailLower === email.toLowerCase());
      if (user)
        skipped.push(
          user.isActive
            ? [email, 'Already has an account.', false]
            : [email, 'Account has been deactivated.', true],
        );
    }
    if (invalid.length > 0)
      throw invitationFailed(
        "Some emails did not validate, so we didn't send any invitations.",
        [...invalid, ...skipped],
        false,
      );
    if (emails.length === 0 || skipped.length === emails.length)
      throw invitationFailed("We weren't able to invite anyone.", skipped, false);

    const created: Invite[] = [];
    for (const email of valid) {
      if (skipped.some(([e]) => e === email)) continue;
      created.push(
        await tx.invite.create({
          data: {
            realmId: actor.realmId,
            referredById: actor.id,
            email,
            key: newInviteKey(),
            invitedAs: options.invitedAs,
            invitedAt: now,
            expiresAt: expiryOf(options, now),
            streamIds: JSON.stringify(streams.map((s) => s.id)),
            groupIds: JSON.stringify(groups.map((g) => g.id)),
            includeRealmDefaultSubscriptions: options.includeRealmDefaultSubscriptions,
            notifyReferrerOnJoin,
            welcomeMessageCustomText: inviteWelcomeText(actor, options),
          },
        }),
      );
    }
    await announceInvitesChanged(tx, onCommit, services, actor.realmId, actor.id);
    return { created, skipped };
  });
  for (const invite of invites.created) await mailInvitation(services, invite, actor, realm);
  if (invites.skipped.length > 0)
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      invites.skipped,
      true,
    );
}

/** POST /invites/multiuse: creates a reusable invitation link; returns its address. */
export async function doCreateInviteLink(
  services: Services,
  actor: User,
  realm: Realm,
  options: InviteOptions,
): Promise<string> {
  requireMemberOrAdmin(actor);
  const invite = await services.db.write(async (tx, onCommit) => {
    if (!(await canCreateInviteLinks(tx, actor))) throw new ApiError('Insufficient permission');
    checkInviteRole(actor, options.invitedAs, inviteNeedsAdmin(options.invitedAs));
    const { streams, groups } = await checkTargets(tx, actor, options);
    const now = new Date();
    const row = await tx.invite.create({
      data: {
        realmId: actor.realmId,
        referredById: actor.id,
        email: null,
        key: newInviteKey(),
        invitedAs: options.invitedAs,
        invitedAt: now,
        expiresAt: expiryOf(options, now),
        streamIds: JSON.stringify(streams.map((s) => s.id)),
        groupIds: JSON.stringify(groups.map((g) => g.id)),
        includeRealmDefaultSubscriptions: options.includeRealmDefaultSubscriptions,
        notifyReferrerOnJoin: false,
        welcomeMessageCustomText: inviteWelcomeText(actor, options),
      },
    });
    await announceInvitesChanged(tx, onCommit, services, actor.realmId, actor.id);
    return row;
  });
  return joinUrl(realm, services.config.externalUrl, invite.key);
}

/** DELETE /invites/{invite_id}: revokes an email invitation. */
export async function doRevokeEmailInvite(
  services: Services,
  actor: User,
  inviteId: number,
): Promise<void> {
  requireMemberOrAdmin(actor);
  await services.db.write(async (tx, onCommit) => {
    const invite = await tx.invite.findUnique({ where: { id: inviteId } });
    if (
      !invite ||
      invite.realmId !== actor.realmId ||
      invite.email === null ||
      invite.status !== InviteStatus.ACTIVE
    )
      throw new ApiError('No such invitation');
    if (invite.referredById !== actor.id) checkInviteRole(actor, invite.invitedAs, true);
    await tx.invite.update({ where: { id: invite.id }, data: { status: InviteStatus.REVOKED } });
    await announceInvitesChanged(tx, onCommit, services, actor.realmId, invite.referredById);
  });
}

/** DELETE /invites/multiuse/{invite_id}: revokes a reusable invitation link. */
export async function doRevokeInviteLink(
  services: Services,
  actor: User,
  inviteId: number,
): Promise<void> {
  requireMemberOrAdmin(actor);
  await services.db.write(async (tx, onCommit) => {
    const invite = await tx.invite.findUnique({ where: { id: inviteId } });
    if (!invite || invite.realmId !== actor.realmId || invite.email !== null)
      throw new ApiError('No such invitation');
    if (invite.referredById !== actor.id) checkInviteRole(actor, invite.invitedAs, true);
    if (invite.status === InviteStatus.REVOKED)
      throw new ApiError('Invitation has already been revoked');
    await tx.invite.update({ where: { id: invite.id }, data: { status: InviteStatus.REVOKED } });
    await announceInvitesChanged(tx, onCommit, services, actor.realmId, invite.referredById);
  });
}

/**
 * POST /invites/{invite_id}/resend: sends an email invitation's mail again.
 * It is checked as one more invitation against the daily limit, and, as in
 * Zulip, moves the invitation's invitedAt to now, which is what the limit
 * counts. No history of sends is kept, so resending an invitation already
 * sent in the last 24 hours adds nothing to the count.
 */
export async function doResendEmailInvite(
  services: Services,
  actor: User,
  realm: Realm,
  inviteId: number,
): Promise<void> {
  requireMemberOrAdmin(actor);
  const { invite, referrer } = await services.db.write(async (tx) => {
    const found = await usableEmailInvite(tx, actor, inviteId);
    if (found.referredById !== actor.id) checkInviteRole(actor, found.invitedAs, true);
    const now = new Date();
    await checkDailyInviteLimit(services, tx, actor.realmId, 1, now);
    const invite = await tx.invite.update({ where: { id: found.id }, data: { invitedAt: now } });
    const referrer = await tx.user.findUniqueOrThrow({ where: { id: invite.referredById } });
    return { invite, referrer };
  });
  await mailInvitation(services, invite, referrer, realm);
}

// Accepting an invitation: the join page's form creates the account in the
// invited role, subscribed to the invitation's channels (and the
// organization's default channels when it asked for them) and in its groups,
// with the usual realm_user, subscription and user_group events. An email
// invitation is then used up (with any other invitation to the same address);
// a link stays usable until it expires or is revoked.
import type { Invite, Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { publishGroupEvent } from '../../lib/groups/group-events';
import {
  InviteStatus,
  invitesChangedAudience,
  isValidEmail,
  storedIds,
} from '../../lib/invites/invites';
import { hashPassword } from '../../lib/users/secrets';
import type { Services } from '../../services';
import { checkFullName, ensureWelcomeBot, insertUser } from '../users/users';
import { EveryoneIn } from '../../events/bus';

/** Shortest password the join page accepts. */
export const MIN_PASSWORD_LENGTH = 6;

/** Why an invitation cannot be used, in words for the join page. */
export class InviteUnusable extends Error {}

/** What the join form sends. */
export interface JoinForm {
  /** Only read for a link; an email invitation's address is its own. */
  email?: string;
  fullName: string;
  password: string;
}

/** The invitation of `key` with its organization, or InviteUnusable saying why it cannot be used. */
export async function usableInviteByKey(
  services: Services,
  key: string,
  now = new Date(),
): Promise<{ invite: Invite; realm: Realm; referrer: User }> {
  const found = await services.db.read(async (db) => {
    const invite = await db.invite.findUnique({ where: { key } });
    if (!invite) return null;
    const realm = await db.realm.findUniqueOrThrow({ where: { id: invite.realmId } });
    const referrer = await db.user.findUniqueOrThrow({ where: { id: invite.referredById } });
    return { invite, realm, referrer };
  });
  if (!found) throw new InviteUnusable('This invitation link is not valid.');
  const { invite, realm } = found;
  if (realm.deactivated) throw new InviteUnusable('This organization has been deactivated.');
  if (invite.status === InviteStatus.REVOKED)
    throw new InviteUnusable('This invitation has been revoked.');
  if (invite.status === InviteStatus.USED)
    throw new InviteUnusable('This invitation has already been used.');
  if (invite.expiresAt !== null && invite.expiresAt.getTime() <= now.getTime())
    throw new InviteUnusable('This invitation has expired.');
  return found;
}

/** Creates the account the invitation of `key` is for; returns the new user. */
export async function doJoinWithInvite(
  services: Services,
  key: string,
  form: JoinForm,
): Promise<User> {
  const { invite, realm: invitedTo } = await usableInviteByKey(services, key);
  const email = (invite.email ?? form.email ?? '').trim();
  if (!isValidEmail(email)) throw new ApiError('Enter a valid email address.');
  const fullName = checkFullName(form.fullName);
  if (form.password.length < MIN_PASSWORD_LENGTH)
    throw new ApiError(`The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  const passwordHash = await hashPassword(form.password);
  await ensureWelcomeBot(services, invitedTo, { isBot: false });
  return services.db.write(async (tx, onCommit) => {
    // Read again inside the transaction: a revocation or another use may have come first.
    const current = await tx.invite.findUniqueOrThrow({ where: { id: invite.id } });
    if (current.status !== InviteStatus.ACTIVE)
      throw new InviteUnusable('This invitation can no longer be used.');
    const realm = await tx.realm.findUniqueOrThrow({ where: { id: invite.realmId } });
    const taken = await tx.user.findUnique({
      where: { realmId_emailLower: { realmId: realm.id, emailLower: email.toLowerCase() } },
    });
    if (taken)
      throw new ApiError(
        taken.isActive
          ? `${email} already has an account in this organization.`
          : `The account of ${email} has been deactivated.`,
      );
    const user = await insertUser(
      tx,
      onCommit,
      services,
      realm,
      {
        email,
        fullName,
        password: form.password,
        role: invite.invitedAs,
        joinDefaultChannels: invite.includeRealmDefaultSubscriptions,
        channelIds: storedIds(invite.streamIds),
        welcomeMessageCustomText: invite.welcomeMessageCustomText,
      },
      passwordHash,
    );
    const groups = await tx.userGroup.findMany({
      where: { id: { in: storedIds(invite.groupIds) }, realmId: realm.id, name: { not: null } },
      orderBy: { id: 'asc' },
    });
    if (groups.length > 0) {
      await tx.userGroupMember.createMany({
        data: groups.map((g) => ({ groupId: g.id, userId: user.id })),
      });
      const everyone = new EveryoneIn(realm.id);
      onCommit(() => {
        for (const group of groups)
          publishGroupEvent(
            services.bus,
            everyone,
            { type: 'user_group', op: 'add_members', group_id: group.id, user_ids: [user.id] },
            { deactivated: group.deactivated },
          );
      });
    }
    // An email invitation is used up, and so is every other one to the same address.
    const usedUp = await tx.invite.findMany({
      where: {
        realmId: realm.id,
        status: InviteStatus.ACTIVE,
        email: { not: null },
      },
    });
    const spent = usedUp.filter(
      (i) => i.id === invite.id || i.email!.toLowerCase() === email.toLowerCase(),
    );
    if (spent.length > 0) {
      await tx.invite.updateMany({
        where: { id: { in: spent.map((i) => i.id) } },
        data: { status: InviteStatus.USED },
      });
      const audience = new Set<number>();
      for (const i of spent)
        for (const id of await invitesChangedAudience(tx, realm.id, i.referredById))
          audience.add(id);
      onCommit(() => services.bus.publish({ type: 'invites_changed' }, audience));
    }
    return user;
  });
}

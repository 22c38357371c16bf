// Muting and unmuting users. Muting marks the muted user's messages to the
// muter read (an update_message_flags event), and both send the muter's
// clients a muted_users event with the whole list.
import { Prisma, type User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { badRequest } from '../../errors';
import { mutedUsersOf } from '../../lib/users/muted-users';
import { accessUserById } from '../../lib/users/users';
import type { Services } from '../../services';
import { markRead } from '../messages/message-flags';

/** The user to mute or unmute: any user of the organization, bots and deactivated users too. */
function mutable(db: Db, user: User, userId: number): Promise<User> {
  return accessUserById(db, user, userId, {
    allowBots: true,
    allowDeactivated: true,
    forAdmin: false,
  });
}

/** Publishes the muter's new list after the commit. */
async function publishMutedUsers(db: Db, onCommit: OnCommit, services: Services, user: User) {
  const mutedUsers = await mutedUsersOf(db, user.id);
  onCommit(() => services.bus.publish({ type: 'muted_users', muted_users: mutedUsers }, [user.id]));
}

/** Mutes `mutedUserId` for `user` and marks that user's messages to them read. */
export async function doMuteUser(services: Services, user: User, mutedUserId: number) {
  if (mutedUserId === user.id) throw badRequest('Cannot mute self');
  await services.db.write(async (tx, onCommit) => {
    const muted = await mutable(tx, user, mutedUserId);
    const existing = await tx.mutedUser.findUnique({
      where: { userId_mutedUserId: { userId: user.id, mutedUserId: muted.id } },
    });
    if (existing) throw badRequest('User already muted');
    await tx.mutedUser.create({
      data: { userId: user.id, mutedUserId: muted.id, dateMuted: new Date() },
    });
    await markRead(tx, onCommit, services, user.id, Prisma.sql`m."senderId" = ${muted.id}`);
    await publishMutedUsers(tx, onCommit, services, user);
  });
}

/** Unmutes `mutedUserId` for `user`; messages stay as they are. */
export async function doUnmuteUser(services: Services, user: User, mutedUserId: number) {
  await services.db.write(async (tx, onCommit) => {
    const muted = await mutable(tx, user, mutedUserId);
    const existing = await tx.mutedUser.findUnique({
      where: { userId_mutedUserId: { userId: user.id, mutedUserId: muted.id } },
    });
    if (!existing) throw badRequest('User is not muted');
    await tx.mutedUser.delete({ where: { id: existing.id } });
    await publishMutedUsers(tx, onCommit, services, user);
  });
}

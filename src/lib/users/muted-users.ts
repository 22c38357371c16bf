// Muted users: whom a user muted and since when, as the API shows it.
import type { Db } from '../../db/client';
import type { StateProvider } from '../state';

/** The users `userId` muted, as `{id, timestamp}` objects, in the order they were muted. */
export async function mutedUsersOf(db: Db, userId: number) {
  const rows = await db.mutedUser.findMany({ where: { userId }, orderBy: { id: 'asc' } });
  return rows.map((r) => ({
    id: r.mutedUserId,
    timestamp: Math.floor(r.dateMuted.getTime() / 1000),
  }));
}

/** `muted_users`: the users the user muted. */
export const mutedUsersState: StateProvider = async ({ db, user }) => ({
  muted_users: await mutedUsersOf(db, user.id),
});

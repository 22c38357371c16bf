// What a guest hears when a change lets them see more users of an
// organization that restricts them (can_access_all_users_group): a realm_user
// add event for each user they may now see, as Zulip sends.
import type { Db, OnCommit } from '../../db/client';
import { profileDataOf } from '../../lib/users/profile-fields';
import { restrictedViews } from '../../lib/users/user-access';
import { presentUser, realmHost } from '../../lib/users/users';
import type { Services } from '../../services';

/** The restricted guests' views before a change, to hand to announceGainedAccess after it. */
export type ViewsBefore = Map<number, Set<number>>;

/** What the guests among `userIds` may see before a change (empty unless the organization restricts). */
export function viewsBefore(
  db: Db,
  realmId: number,
  userIds: Iterable<number>,
): Promise<ViewsBefore> {
  return restrictedViews(db, realmId, userIds);
}

/**
 * After a change made in `tx`: each guest of `before` gets, after the commit,
 * a realm_user add event for every user they may see now and could not before.
 */
export async function announceGainedAccess(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realmId: number,
  before: ViewsBefore,
): Promise<void> {
  if (before.size === 0) return;
  const after = await restrictedViews(tx, realmId, before.keys());
  const realm = await tx.realm.findUniqueOrThrow({ where: { id: realmId } });
  const host = realmHost(realm, services.config.externalUrl);
  for (const [guestId, seen] of before) {
    const gained = [...(after.get(guestId) ?? [])].filter((id) => !seen.has(id));
    if (gained.length === 0) continue;
    const [guest, users] = await Promise.all([
      tx.user.findUniqueOrThrow({ where: { id: guestId } }),
      tx.user.findMany({
        where: { id: { in: gained }, isBot: false, isActive: true },
        orderBy: { id: 'asc' },
      }),
    ]);
    const profileData = await profileDataOf(
      tx,
      users.map((u) => u.id),
    );
    const persons = users.map((u) =>
      presentUser(u, guest, host, { clientGravatar: false, profileData }),
    );
    onCommit(() => {
      for (const person of persons)
        services.bus.publish({ type: 'realm_user', op: 'add', person }, [guestId]);
    });
  }
}

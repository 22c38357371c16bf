// Which channels GET /streams returns for a combination of its flags, with
// Zulip's rules: the include_* sources are unioned; include_all returns every
// channel the user has metadata access to and overrides the others;
// include_can_access_content returns the content-accessible channels (still
// unioned with a bot owner's subscriptions); guests never get public channels
// they are not in.
import type { Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ChannelAccess, isGuest } from './stream-access';

/** The flags of GET /streams, with their defaults applied. */
export interface StreamListFlags {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  excludeArchived: boolean;
  includeAll: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
}

async function subscribedStreamIds(db: Db, userId: number): Promise<Set<number>> {
  const rows = await db.subscription.findMany({
    where: { userId, active: true },
    select: { streamId: true },
  });
  return new Set(rows.map((r) => r.streamId));
}

/** The channels `user` asked for with `flags`, sorted by name. */
export async function listStreamsForUser(
  db: Db,
  user: User,
  flags: StreamListFlags,
): Promise<Stream[]> {
  const all = await db.stream.findMany({
    where: { realmId: user.realmId, ...(flags.excludeArchived ? { isArchived: false } : {}) },
  });
  const access = new ChannelAccess(db, user);
  let selected: Stream[];
  if (flags.includeAll) {
    selected = await access.withMetadataAccess(all);
  } else {
    const ids = new Set<number>();
    const ownerSubscribed = flags.includeOwnerSubscribed && user.isBot && user.botOwnerId !== null;
    if (flags.includeCanAccessContent) {
      for (const s of await access.withContentAccess(all)) ids.add(s.id);
    } else {
      if (flags.includeSubscribed) for (const id of await access.subscribedIds()) ids.add(id);
      if (flags.includePublic && !isGuest(user))
        for (const s of all) if (!s.inviteOnly) ids.add(s.id);
      if (flags.includeWebPublic)
        for (const s of all)
          if (s.isWebPublic && !s.inviteOnly && s.historyPublicToSubscribers && !s.isArchived)
            ids.add(s.id);
    }
    if (ownerSubscribed)
      for (const id of await subscribedStreamIds(db, user.botOwnerId!)) ids.add(id);
    selected = all.filter((s) => ids.has(s.id));
  }
  return selected.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

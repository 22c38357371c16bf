// Presence: when each user was last active and last connected, read in
// Zulip's two formats. Modern entries are keyed by user ID and carry the two
// timestamps; legacy entries are keyed by email and carry a status per client.
import type { User, UserPresence } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import type { StateProvider } from '../state';
import type { Realm } from '../../../generated/prisma/sqlite/client';
import { apiEmail, realmHost } from './users';

/** A user counts as active when last active within this many seconds of last connecting. */
export const ACTIVE_WINDOW_SECONDS = 70;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

type Row = UserPresence & { user: User };

/** The modern entry: active and idle timestamps, falling back to the join date. */
export function modernPresence(row: Row) {
  return {
    active_timestamp: seconds(row.lastActiveTime ?? row.user.dateJoined),
    idle_timestamp: seconds(row.lastConnectedTime ?? row.user.dateJoined),
  };
}

/** The legacy entry: one client, "website", and the aggregate of all clients. */
export function legacyPresence(row: Row) {
  const connected = row.lastConnectedTime ?? row.user.dateJoined;
  const active =
    row.lastActiveTime !== null &&
    seconds(row.lastActiveTime) + ACTIVE_WINDOW_SECONDS >= seconds(connected);
  const status: 'active' | 'idle' = active ? 'active' : 'idle';
  const timestamp = seconds(active ? row.lastActiveTime! : connected);
  return {
    aggregated: { client: 'website', status, timestamp },
    website: { client: 'website', status, timestamp, pushable: false },
  };
}

/** One user's presence, in either format. */
export type PresenceEntry = ReturnType<typeof modernPresence> | ReturnType<typeof legacyPresence>;

/** Which presence data to read. */
export interface PresenceQuery {
  /** Only rows changed after this sequence number (when above 0). */
  lastUpdateId: number | null;
  /** Otherwise, only users connected within this many days. */
  historyLimitDays: number;
  /** Key by user ID with timestamps, rather than by email with statuses. */
  modern: boolean;
  /** The host for placeholder emails in the legacy format. */
  externalUrl: string;
}

/** The presence data of an organization and the newest sequence number in it. */
export async function readPresences(
  db: Db,
  realm: Pick<Realm, 'id' | 'stringId'>,
  query: PresenceQuery,
) {
  const realmId = realm.id;
  const since = query.lastUpdateId !== null && query.lastUpdateId > 0;
  if (!since && query.historyLimitDays <= 0)
    return {
      presences: {} as Record<string, PresenceEntry>,
      lastUpdateId: query.lastUpdateId ?? -1,
    };
  const rows = await db.userPresence.findMany({
    where: {
      realmId,
      user: { isActive: true, isBot: false, presenceEnabled: true },
      ...(since
        ? { lastUpdateId: { gt: query.lastUpdateId! } }
        : {
            lastConnectedTime: { gte: new Date(Date.now() - query.historyLimitDays * 86_400_000) },
          }),
    },
    include: { user: true },
  });
  const host = realmHost(realm, query.externalUrl);
  const presences: Record<string, PresenceEntry> = {};
  let lastUpdateId = query.lastUpdateId ?? -1;
  for (const row of rows) {
    presences[query.modern ? String(row.userId) : apiEmail(row.user, host)] = query.modern
      ? modernPresence(row)
      : legacyPresence(row);
    lastUpdateId = Math.max(lastUpdateId, row.lastUpdateId);
  }
  return { presences, lastUpdateId };
}

/** `presence`: everyone's presence, in the format the client asked for. */
export const presenceState: StateProvider = async ({ db, realm, externalUrl, slimPresence }) => {
  const { presences, lastUpdateId } = await readPresences(db, realm, {
    lastUpdateId: null,
    historyLimitDays: 14,
    modern: slimPresence,
    externalUrl,
  });
  return { presences, presence_last_update_id: lastUpdateId, server_timestamp: Date.now() / 1000 };
};

/** Seconds without activity after which a single user's presence reads `offline`. */
export const OFFLINE_THRESHOLD_SECONDS = 140;

/**
 * One user's presence as GET /users/{user_id_or_email}/presence shows it: the
 * legacy entry without `client` and `pushable`, `aggregated` reading
 * `offline` once it is older than the offline threshold. Undefined when the
 * user never reported presence, or hides it (`presence_enabled` off).
 */
export async function singleUserPresence(db: Db, user: User, now: Date) {
  if (!user.presenceEnabled) return undefined;
  const row = await db.userPresence.findUnique({ where: { userId: user.id } });
  if (!row) return undefined;
  const { aggregated, website } = legacyPresence({ ...row, user });
  const stale = seconds(now) - aggregated.timestamp > OFFLINE_THRESHOLD_SECONDS;
  return {
    aggregated: {
      status: stale ? ('offline' as const) : aggregated.status,
      timestamp: aggregated.timestamp,
    },
    website: { status: website.status, timestamp: website.timestamp },
  };
}

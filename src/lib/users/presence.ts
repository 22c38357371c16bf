// Presence: when each user was last active and last connected, read in
// Zulip's two formats. Modern entries are keyed by user ID and carry the two
// timestamps; legacy entries are keyed by email and carry a status per client.
import type { User, UserPresence } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import type { StateProvider } from '../state';
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { CachedPresence, PresenceCache } from '../presence-cache';
import { apiEmail, realmHost } from './users';

/** The client capability under which presence events carry the modern `presences` map. */
export const SIMPLIFIED_PRESENCE_CAPABILITY = 'simplified_presence_events';

/** A user counts as active when last active within this many seconds of last connecting. */
export const ACTIVE_WINDOW_SECONDS = 70;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** What the two formats read of a presence row and its user. */
type Row = Pick<UserPresence, 'lastActiveTime' | 'lastConnectedTime'> & {
  user: Pick<User, 'dateJoined'>;
};

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

/**
 * The presence data of an organization and the newest sequence number in it;
 * with `entries: false`, only that number (what a ping_only report answers).
 * Every member reports each minute and each report reads nearly everyone's
 * presence, so the rows come from the process's presence cache, brought up to
 * date with the changes since its last use (see lib/presence-cache.ts).
 */
export async function readPresences(
  db: Db,
  cache: PresenceCache,
  realm: Pick<Realm, 'id' | 'stringId'>,
  query: PresenceQuery,
  { entries = true, text = false }: { entries?: boolean; text?: boolean } = {},
) {
  const since = query.lastUpdateId !== null && query.lastUpdateId > 0;
  const presences: Record<string, PresenceEntry> = {};
  // With `text`, modern entries are answered as JSON text, each row's made once.
  const texts: string[] | null = text && query.modern ? [] : null;
  let lastUpdateId = query.lastUpdateId ?? -1;
  if (!since && query.historyLimitDays <= 0) return { presences, lastUpdateId };
  const after = since ? query.lastUpdateId! : 0;
  const connectedSince = since ? 0 : Date.now() - query.historyLimitDays * 86_400_000;
  const host = realmHost(realm, query.externalUrl);
  for (const r of await cache.rows(db, realm.id)) {
    if (!r.shown) continue;
    if (
      since
        ? r.lastUpdateId <= after
        : (r.lastConnectedTime?.getTime() ?? -Infinity) < connectedSince
    )
      continue;
    if (r.lastUpdateId > lastUpdateId) lastUpdateId = r.lastUpdateId;
    if (!entries) continue;
    if (texts) {
      texts.push((r.modernText ??= `"${r.userId}":${JSON.stringify(modernPresence(rowOf(r)))}`));
      continue;
    }
    const key = query.modern
      ? String(r.userId)
      : apiEmail(
          {
            id: r.userId,
            email: r.email,
            isBot: false,
            emailAddressVisibility: r.emailAddressVisibility,
          },
          host,
        );
    presences[key] = query.modern ? modernPresence(rowOf(r)) : legacyPresence(rowOf(r));
  }
  return { presences, presencesText: texts ? `{${texts.join(',')}}` : undefined, lastUpdateId };
}

/** What the two formats read of a cached row. */
function rowOf(r: CachedPresence): Row {
  return {
    lastActiveTime: r.lastActiveTime,
    lastConnectedTime: r.lastConnectedTime,
    user: { dateJoined: r.dateJoined },
  };
}

/** `presence`: everyone's presence, in the format the client asked for. */
export const presenceState: StateProvider = async ({
  db,
  presence,
  realm,
  externalUrl,
  slimPresence,
}) => {
  const { presences, lastUpdateId } = await readPresences(db, presence, realm, {
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
  return {
    aggregated: {
      status: presenceStatusAt({ ...row, user }, now),
      timestamp: aggregated.timestamp,
    },
    website: { status: website.status, timestamp: website.timestamp },
  };
}

/**
 * How a user's last reports read at `now`: active or idle as the legacy
 * entry says, or offline once that entry's time is older than the offline
 * threshold.
 */
export function presenceStatusAt(row: Row, now: Date): 'active' | 'idle' | 'offline' {
  const { aggregated } = legacyPresence(row);
  return seconds(now) - aggregated.timestamp > OFFLINE_THRESHOLD_SECONDS
    ? 'offline'
    : aggregated.status;
}

// A user's subscriptions as the API shows them: the channel object with the
// user's personal settings for it, who else is subscribed, and the three
// lists of POST /register (subscribed, unsubscribed, never subscribed).
import type { Stream, Subscription, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ChannelAccess, isAdmin, isGuest } from './stream-access';
import { presentStreams } from './streams';
import type { components } from '../../../generated/api';
import type { SubscriberListing } from '../state';

/** A subscription as the API shows it: the channel object with the user's own settings. */
export type SubscriptionObject = components['schemas']['Subscription'];

/** Colours given to new subscriptions, in order of preference. */
export const STREAM_COLORS = [
  '#76ce90',
  '#fae589',
  '#a6c7e5',
  '#e79ab5',
  '#bfd56f',
  '#f4ae55',
  '#b0a5fd',
  '#addfe5',
  '#f5ce6e',
  '#c2726a',
  '#94c849',
  '#bd86e5',
  '#ee7e4a',
  '#a6dcbf',
  '#95a5fd',
  '#53a063',
  '#9987e1',
  '#e4523d',
  '#c2c2c2',
  '#4f8de4',
  '#c6a8ad',
  '#e7cc4d',
  '#c8bebf',
  '#a47462',
];

/** The first colour of the palette the user does not use yet (cycling when all are used). */
export function pickColor(used: Iterable<string>): string {
  const taken = new Set(used);
  return (
    STREAM_COLORS.find((c) => !taken.has(c)) ?? STREAM_COLORS[taken.size % STREAM_COLORS.length]
  );
}

/** The subscription properties a user may change, and their columns. */
export const subscriptionProperties = {
  color: 'color',
  is_muted: 'isMuted',
  in_home_view: 'isMuted',
  pin_to_top: 'pinToTop',
  desktop_notifications: 'desktopNotifications',
  audible_notifications: 'audibleNotifications',
  push_notifications: 'pushNotifications',
  email_notifications: 'emailNotifications',
  wildcard_mentions_notify: 'wildcardMentionsNotify',
} as const satisfies Record<string, keyof Subscription>;

/** The user's personal settings of one subscription. */
export function presentPersonalSettings(sub: Subscription) {
  return {
    color: sub.color,
    is_muted: sub.isMuted,
    in_home_view: !sub.isMuted,
    pin_to_top: sub.pinToTop,
    desktop_notifications: sub.desktopNotifications,
    audible_notifications: sub.audibleNotifications,
    push_notifications: sub.pushNotifications,
    email_notifications: sub.emailNotifications,
    wildcard_mentions_notify: sub.wildcardMentionsNotify,
  };
}

/** Active subscribers (active users) of each channel, by channel ID. */
export async function subscriberIds(db: Db, streamIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  if (streamIds.length === 0) return out;
  const rows = await db.subscription.findMany({
    where: { streamId: { in: streamIds }, active: true, user: { isActive: true } },
    select: { streamId: true, userId: true },
    orderBy: { userId: 'asc' },
  });
  for (const r of rows) out.get(r.streamId)!.push(r.userId);
  return out;
}

/** The subscriber count from which `partial` gives a partial list. */
export const PARTIAL_SUBSCRIBERS_THRESHOLD = 250;

/** How recently a person must have been active to be in a partial list. */
export const RECENTLY_ACTIVE_DAYS = 14;

/** The subscriber list key and value of one channel, for `listing`. */
type SubscriberFields = { subscribers?: number[]; partial_subscribers?: number[] };

/**
 * The subscriber lists `listing` asks for, by channel ID: the key to show
 * (`subscribers` or `partial_subscribers`) with its user IDs; null for none.
 */
export async function subscriberLists(
  db: Db,
  streamIds: number[],
  listing: SubscriberListing,
): Promise<Map<number, SubscriberFields> | null> {
  if (listing === false) return null;
  const members = await subscriberIds(db, streamIds);
  const out = new Map<number, SubscriberFields>();
  const large = [...members].filter(
    ([, ids]) => listing === 'partial' && ids.length >= PARTIAL_SUBSCRIBERS_THRESHOLD,
  );
  let kept = new Set<number>();
  if (large.length > 0) {
    const since = new Date(Date.now() - RECENTLY_ACTIVE_DAYS * 86_400_000);
    const candidates = [...new Set(large.flatMap(([, ids]) => ids))];
    const rows = await db.user.findMany({
      where: {
        id: { in: candidates },
        OR: [{ isBot: true }, { presence: { is: { lastActiveTime: { gte: since } } } }],
      },
      select: { id: true },
    });
    kept = new Set(rows.map((r) => r.id));
  }
  for (const [streamId, ids] of members)
    out.set(
      streamId,
      listing === 'partial' && ids.length >= PARTIAL_SUBSCRIBERS_THRESHOLD
        ? { partial_subscribers: ids.filter((id) => kept.has(id)) }
        : { subscribers: ids },
    );
  return out;
}

/** Whether `viewer` may see who is subscribed to `stream`. */
export async function canSeeSubscribers(access: ChannelAccess, stream: Stream): Promise<boolean> {
  if (await access.isSubscribed(stream)) return true;
  if (isGuest(access.user)) return stream.isWebPublic;
  if (!stream.inviteOnly || isAdmin(access.user)) return true;
  return access.hasContentAccess(stream);
}

/** Subscription objects for `subs` (each with its channel), with subscriber lists when asked. */
export async function presentSubscriptions(
  db: Db,
  subs: (Subscription & { stream: Stream })[],
  includeSubscribers: SubscriberListing,
  access?: ChannelAccess,
): Promise<SubscriptionObject[]> {
  const channels = await presentStreams(
    db,
    subs.map((s) => s.stream),
  );
  const members = await subscriberLists(
    db,
    subs.map((s) => s.streamId),
    includeSubscribers,
  );
  const out: SubscriptionObject[] = [];
  for (let i = 0; i < subs.length; i++) {
    const sub = subs[i];
    const visible = members !== null && (!access || (await canSeeSubscribers(access, sub.stream)));
    out.push({
      ...channels[i],
      ...presentPersonalSettings(sub),
      ...(visible ? members.get(sub.streamId) : {}),
    });
  }
  return out;
}

/** The user's active subscriptions, sorted by channel name. */
export async function activeSubscriptions(
  db: Db,
  userId: number,
  includeArchived = true,
): Promise<(Subscription & { stream: Stream })[]> {
  const subs = await db.subscription.findMany({
    where: { userId, active: true, ...(includeArchived ? {} : { stream: { isArchived: false } }) },
    include: { stream: true },
  });
  return subs.sort((a, b) => compareNames(a.stream.name, b.stream.name));
}

/** Orders channel names as Zulip's lists do (by name). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The three subscription lists of POST /register. */
export async function gatherSubscriptions(
  db: Db,
  user: User,
  options: { includeSubscribers: SubscriberListing; includeArchived: boolean },
) {
  const access = new ChannelAccess(db, user);
  const all = await db.subscription.findMany({
    where: { userId: user.id },
    include: { stream: true },
  });
  const keep = (s: Stream) => options.includeArchived || !s.isArchived;
  const subscribed = all
    .filter((s) => s.active && keep(s.stream))
    .sort((a, b) => compareNames(a.stream.name, b.stream.name));
  const inactive = all
    .filter((s) => !s.active && keep(s.stream))
    .sort((a, b) => compareNames(a.stream.name, b.stream.name));
  const unsubscribed: typeof inactive = [];
  for (const s of inactive) if (await access.hasMetadataAccess(s.stream)) unsubscribed.push(s);
  const known = new Set(all.map((s) => s.streamId));
  const others = await db.stream.findMany({
    where: {
      realmId: user.realmId,
      id: { notIn: [...known] },
      ...(options.includeArchived ? {} : { isArchived: false }),
    },
  });
  const never = (await access.withMetadataAccess(others)).sort((a, b) =>
    compareNames(a.name, b.name),
  );
  const neverObjects = await presentStreams(db, never);
  let neverWithSubscribers = neverObjects;
  const members = await subscriberLists(
    db,
    never.map((s) => s.id),
    options.includeSubscribers,
  );
  if (members) {
    neverWithSubscribers = [];
    for (let i = 0; i < never.length; i++) {
      const visible = await canSeeSubscribers(access, never[i]);
      neverWithSubscribers.push({
        ...neverObjects[i],
        ...(visible ? members.get(never[i].id) : {}),
      });
    }
  }
  return {
    subscriptions: await presentSubscriptions(db, subscribed, options.includeSubscribers, access),
    unsubscribed: await presentSubscriptions(db, unsubscribed, options.includeSubscribers, access),
    never_subscribed: neverWithSubscribers,
  };
}

// Subscribing (creating channels on the way), unsubscribing, and changing
// one's personal settings of a subscription. Events go out after the commit:
// `subscription` add/remove/update to the user, peer_add/peer_remove to those
// who may see the channel's subscribers, and `stream` create/delete to users
// who gain or lose sight of a channel.
import { announceGainedAccess, viewsBefore } from '../users/user-access';
import type { Realm, Stream, Subscription, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { badRequest } from '../../errors';
import { ChannelAccess, isAdmin, isGuest } from '../../lib/channels/stream-access';
import { metadataAccessUserIds, subscriberPeerIds } from '../../lib/channels/stream-audience';
import { checkStreamName, presentStreams } from '../../lib/channels/streams';
import {
  pickColor,
  presentSubscriptions,
  subscriptionProperties,
} from '../../lib/channels/subscriptions';
import type { EventOf } from '../../events/queues';
import type { Services } from '../../services';
import { channelFolderById } from '../../lib/channels/channel-folders';
import { checkCreationPermissions, createStreams, type NewStreamSettings } from './streams';

/** One channel of a subscribe request. */
export interface SubscribeItem {
  name: string;
  description?: string;
  color?: string;
}

/** What POST /users/me/subscriptions asks. */
export interface SubscribeRequest {
  items: SubscribeItem[];
  /** Users to subscribe (IDs or emails); empty subscribes the requester. */
  principals: (number | string)[];
  authorizationErrorsFatal: boolean;
  settings: NewStreamSettings;
}

/** Who was subscribed to what, by user ID. */
export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}

/** The users named by `principals` (all IDs or all emails), refusing unknown and deactivated ones. */
export async function resolvePrincipals(
  db: Db,
  realmId: number,
  principals: (number | string)[],
): Promise<User[]> {
  const ids = principals.filter((p): p is number => typeof p === 'number');
  const emails = principals
    .filter((p): p is string => typeof p === 'string')
    .map((e) => e.trim().toLowerCase());
  const users = await db.user.findMany({
    where: { realmId, OR: [{ id: { in: ids } }, { emailLower: { in: emails } }] },
  });
  const found = new Set([...users.map((u) => u.id), ...users.map((u) => u.emailLower)]);
  if (ids.some((id) => !found.has(id)) || emails.some((e) => !found.has(e)))
    throw badRequest('No such user');
  if (users.some((u) => !u.isActive)) throw badRequest('User is deactivated');
  return users;
}

/** Adds subscriptions (or reactivates old ones) and publishes the events; returns who got what. */
export async function addSubscriptions(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  pairs: { user: User; stream: Stream; color?: string }[],
) {
  const streams = [...new Map(pairs.map((p) => [p.stream.id, p.stream])).values()];
  const audienceBefore = new Map<number, Set<number>>();
  for (const s of streams) audienceBefore.set(s.id, new Set(await metadataAccessUserIds(tx, s)));
  const userIds = [...new Set(pairs.map((p) => p.user.id))];
  // Guests of a restricted organization may come to see the channel's subscribers, or be seen.
  const subscribersBefore = await tx.subscription.findMany({
    where: { streamId: { in: streams.map((s) => s.id) }, active: true },
    select: { userId: true },
  });
  const views =
    pairs.length > 0
      ? await viewsBefore(tx, pairs[0].stream.realmId, [
          ...userIds,
          ...subscribersBefore.map((s) => s.userId),
        ])
      : new Map<number, Set<number>>();
  const { added, already } = await writeSubscriptions(tx, pairs, userIds, streams);
  if (added.length > 0) {
    await announceGainedAccess(tx, onCommit, services, pairs[0].stream.realmId, views);
    const newSubs = await tx.subscription.findMany({
      where: { OR: added.map((p) => ({ userId: p.user.id, streamId: p.stream.id })) },
      include: { stream: true },
    });
    const objects = await presentSubscriptions(tx, newSubs, true);
    const streamObjects = new Map((await presentStreams(tx, streams)).map((o) => [o.stream_id, o]));
    const peers = new Map<number, number[]>();
    const gained = new Map<number, number[]>();
    for (const s of streams) {
      const after = await subscriberPeerIds(tx, s);
      peers.set(s.id, after);
      gained.set(
        s.id,
        after.filter((id) => !audienceBefore.get(s.id)!.has(id)),
      );
    }
    onCommit(() => {
      for (const s of streams) {
        const newcomers = gained.get(s.id)!;
        if (newcomers.length)
          services.bus.publish(
            {
              type: 'stream',
              op: 'create',
              streams: [streamObjects.get(s.id)!],
            },
            newcomers,
          );
      }
      for (const userId of new Set(added.map((p) => p.user.id))) {
        const mine = newSubs
          .map((sub, i) => ({ sub, obj: objects[i] }))
          .filter((x) => x.sub.userId === userId);
        services.bus.publish(
          {
            type: 'subscription',
            op: 'add',
            subscriptions: mine.map((x) => x.obj),
          },
          [userId],
        );
      }
      for (const s of streams) {
        const joined = added
          .filter((p) => p.stream.id === s.id)
          .map((p) => p.user.id)
          .sort((a, b) => a - b);
        if (joined.length === 0) continue;
        const others = peers.get(s.id)!.filter((id) => !joined.includes(id));
        services.bus.publish(
          { type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: joined },
          others,
        );
      }
    });
  }
  return { added, already };
}

/** Subscribes each pair's user to its channel: reactivates an old subscription, or creates one with a color. */
async function writeSubscriptions(
  tx: Db,
  pairs: { user: User; stream: Stream; color?: string }[],
  userIds: number[],
  streams: Stream[],
): Promise<{ added: { user: User; stream: Stream }[]; already: { user: User; stream: Stream }[] }> {
  const existing = await tx.subscription.findMany({
    where: { userId: { in: userIds }, streamId: { in: streams.map((s) => s.id) } },
  });
  const colors = await tx.subscription.findMany({
    where: { userId: { in: userIds } },
    select: { userId: true, color: true },
  });
  const added: { user: User; stream: Stream }[] = [];
  const already: { user: User; stream: Stream }[] = [];
  for (const pair of pairs) {
    const sub = existing.find((s) => s.userId === pair.user.id && s.streamId === pair.stream.id);
    if (sub?.active) {
      already.push(pair);
      continue;
    }
    if (sub) {
      await tx.subscription.update({ where: { id: sub.id }, data: { active: true } });
    } else {
      const color =
        pair.color ??
        pickColor(colors.filter((c) => c.userId === pair.user.id).map((c) => c.color));
      colors.push({ userId: pair.user.id, color });
      await tx.subscription.create({
        data: { userId: pair.user.id, streamId: pair.stream.id, color },
      });
    }
    added.push(pair);
  }
  return { added, already };
}

function byUser(pairs: { user: User; stream: Stream }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of pairs) (out[String(p.user.id)] ??= []).push(p.stream.name);
  return out;
}

/** Subscribes the requester or `principals` to channels, creating those that do not exist. */
export async function doSubscribe(
  services: Services,
  realm: Realm,
  user: User,
  request: SubscribeRequest,
): Promise<SubscribeResult> {
  return services.db.write((tx, onCommit) =>
    subscribeIn(tx, onCommit, services, realm, user, request),
  );
}

/** doSubscribe inside an open transaction, for requests that also do other things. */
export async function subscribeIn(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  user: User,
  request: SubscribeRequest,
): Promise<SubscribeResult> {
  if (isGuest(user)) throw badRequest('Not allowed for guest users');
  const items = request.items.map((item) => ({ ...item, name: item.name.trim() }));
  for (const item of items) checkStreamName(item.name);
  const access = new ChannelAccess(tx, user);
  const lower = [...new Set(items.map((i) => i.name.toLowerCase()))];
  const existing = await tx.stream.findMany({
    where: { realmId: realm.id, nameLower: { in: lower } },
  });
  const missing = items.filter(
    (i, n) =>
      !existing.some((s) => s.nameLower === i.name.toLowerCase()) &&
      items.findIndex((j) => j.name.toLowerCase() === i.name.toLowerCase()) === n,
  );
  let created: Stream[] = [];
  if (missing.length > 0) {
    await checkCreationPermissions(access, realm, request.settings);
    if (request.settings.folderId !== null)
      await channelFolderById(tx, realm.id, request.settings.folderId);
    created = await createStreams(
      tx,
      onCommit,
      services,
      realm,
      user,
      missing.map((m) => ({ name: m.name, description: m.description ?? '' })),
      request.settings,
    );
  }
  const authorized: Stream[] = [];
  const unauthorized: Stream[] = [];
  for (const s of existing)
    ((await access.hasContentAccess(s)) ? authorized : unauthorized).push(s);
  if (unauthorized.length > 0 && request.authorizationErrorsFatal)
    throw badRequest(`Unable to access channel (${unauthorized[0].name}).`);
  const targets =
    request.principals.length > 0
      ? await resolvePrincipals(tx, realm.id, request.principals)
      : [user];
  const othersToo = targets.some((t) => t.id !== user.id);
  if (
    othersToo &&
    authorized.length > 0 &&
    !isAdmin(user) &&
    !(await access.holds(realm.canAddSubscribersGroupId))
  ) {
    for (const s of authorized) {
      if (
        !(await access.holds(s.canAdministerChannelGroupId)) &&
        !(await access.holds(s.canAddSubscribersGroupId))
      )
        throw badRequest('Insufficient permission');
    }
  }
  const streams = [...authorized, ...created];
  const colorOf = (s: Stream) => items.find((i) => i.name.toLowerCase() === s.nameLower)?.color;
  const pairs = targets.flatMap((t) =>
    streams.map((stream) => ({
      user: t,
      stream,
      color: t.id === user.id ? colorOf(stream) : undefined,
    })),
  );
  const { added, already } = await addSubscriptions(tx, onCommit, services, pairs);
  return {
    subscribed: byUser(added),
    already_subscribed: byUser(already),
    ...(request.authorizationErrorsFatal ? {} : { unauthorized: unauthorized.map((s) => s.name) }),
  };
}

/** Unsubscribes the requester or `principals` from the named channels. */
export async function doUnsubscribe(
  services: Services,
  realm: Realm,
  user: User,
  names: string[],
  principals: (number | string)[],
): Promise<{ removed: string[]; not_removed: string[] }> {
  return services.db.write((tx, onCommit) =>
    unsubscribeIn(tx, onCommit, services, realm, user, names, principals),
  );
}

/** doUnsubscribe inside an open transaction, for requests that also do other things. */
export async function unsubscribeIn(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  user: User,
  names: string[],
  principals: (number | string)[],
): Promise<{ removed: string[]; not_removed: string[] }> {
  const trimmed = names.map((n) => n.trim());
  for (const name of trimmed) checkStreamName(name);
  const access = new ChannelAccess(tx, user);
  const found = await tx.stream.findMany({
    where: { realmId: realm.id, nameLower: { in: trimmed.map((n) => n.toLowerCase()) } },
  });
  const missing = trimmed.filter((n) => !found.some((s) => s.nameLower === n.toLowerCase()));
  if (missing.length > 0) throw badRequest(`Channel(s) (${missing.join(', ')}) do not exist`);
  const streams = trimmed
    .map((n) => found.find((s) => s.nameLower === n.toLowerCase())!)
    .filter((s, i, all) => all.indexOf(s) === i);
  const targets =
    principals.length > 0 ? await resolvePrincipals(tx, realm.id, principals) : [user];
  const othersToo = targets.some((t) => t.id !== user.id && !(t.isBot && t.botOwnerId === user.id));
  if (othersToo && !isAdmin(user)) {
    if (isGuest(user)) throw badRequest('Insufficient permission');
    for (const s of streams) {
      if (await access.holds(s.canAdministerChannelGroupId)) continue;
      if (
        !(await access.hasMetadataAccess(s)) ||
        !(await access.holds(s.canRemoveSubscribersGroupId))
      )
        throw badRequest('Insufficient permission');
    }
  }
  const subs = await tx.subscription.findMany({
    where: {
      userId: { in: targets.map((t) => t.id) },
      streamId: { in: streams.map((s) => s.id) },
      active: true,
    },
  });
  const removed: { sub: Subscription; stream: Stream }[] = [];
  const notRemoved: string[] = [];
  for (const target of targets) {
    for (const stream of streams) {
      const sub = subs.find((s) => s.userId === target.id && s.streamId === stream.id);
      if (sub) removed.push({ sub, stream });
      else notRemoved.push(stream.name);
    }
  }
  if (removed.length > 0) {
    await tx.subscription.updateMany({
      where: { id: { in: removed.map((r) => r.sub.id) } },
      data: { active: false },
    });
    const peers = new Map<number, number[]>();
    const audience = new Map<number, Set<number>>();
    for (const s of streams) {
      peers.set(s.id, await subscriberPeerIds(tx, s));
      audience.set(s.id, new Set(await metadataAccessUserIds(tx, s)));
    }
    onCommit(() => {
      for (const target of targets) {
        const mine = removed.filter((r) => r.sub.userId === target.id);
        if (mine.length === 0) continue;
        services.bus.publish(
          {
            type: 'subscription',
            op: 'remove',
            subscriptions: mine.map((r) => ({ name: r.stream.name, stream_id: r.stream.id })),
          },
          [target.id],
        );
      }
      for (const s of streams) {
        const left = removed
          .filter((r) => r.stream.id === s.id)
          .map((r) => r.sub.userId)
          .sort((a, b) => a - b);
        if (left.length === 0) continue;
        services.bus.publish(
          { type: 'subscription', op: 'peer_remove', stream_ids: [s.id], user_ids: left },
          peers.get(s.id)!.filter((id) => !left.includes(id)),
        );
        const lost = left.filter((id) => !audience.get(s.id)!.has(id));
        if (lost.length)
          services.bus.publish(
            {
              type: 'stream',
              op: 'delete',
              streams: [{ stream_id: s.id }],
              stream_ids: [s.id],
            },
            lost,
          );
      }
    });
  }
  return { removed: removed.map((r) => r.stream.name), not_removed: notRemoved };
}

/** One change of POST /users/me/subscriptions/properties, already type-checked. */
export interface PropertyChange {
  streamId: number;
  property: keyof typeof subscriptionProperties;
  value: boolean | string;
}

/** Applies personal subscription setting changes in order, with one update event per property. */
export async function doUpdateSubscriptionProperties(
  services: Services,
  user: User,
  changes: PropertyChange[],
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const access = new ChannelAccess(tx, user);
    const events: EventOf<'subscription', 'update'>[] = [];
    for (const change of changes) {
      const stream = await tx.stream.findFirst({
        where: { id: change.streamId, realmId: user.realmId },
      });
      if (!stream || !(await access.hasContentAccess(stream)))
        throw badRequest('Invalid channel ID');
      const sub = await tx.subscription.findFirst({
        where: { userId: user.id, streamId: stream.id, active: true },
      });
      if (!sub) throw badRequest(`Not subscribed to channel ID ${change.streamId}`);
      const column = subscriptionProperties[change.property];
      const value = change.property === 'in_home_view' ? !change.value : change.value;
      await tx.subscription.update({ where: { id: sub.id }, data: { [column]: value } });
      if (change.property === 'is_muted' || change.property === 'in_home_view') {
        events.push({
          type: 'subscription',
          op: 'update',
          stream_id: stream.id,
          property: 'in_home_view',
          value: !value,
        });
        events.push({
          type: 'subscription',
          op: 'update',
          stream_id: stream.id,
          property: 'is_muted',
          value,
        });
      } else {
        events.push({
          type: 'subscription',
          op: 'update',
          stream_id: stream.id,
          property: change.property,
          value,
        });
      }
    }
    onCommit(() => {
      for (const event of events) services.bus.publish(event, [user.id]);
    });
  });
}

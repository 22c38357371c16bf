// Channels (streams) as the API shows them: the permission settings, their
// defaults, the channel object of Part 2.5, and looking channels up by ID or name.
import type { Stream } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import { SystemGroup, type SystemGroupName } from '../constants';
import { readGroupSettingValues, type GroupSettingValue } from '../groups/group-settings';
import type { components } from '../../../generated/api';

/** The channel's group-valued permission settings: API name and column. */
export const streamGroupSettings = {
  can_add_subscribers_group: 'canAddSubscribersGroupId',
  can_remove_subscribers_group: 'canRemoveSubscribersGroupId',
  can_administer_channel_group: 'canAdministerChannelGroupId',
  can_delete_any_message_group: 'canDeleteAnyMessageGroupId',
  can_delete_own_message_group: 'canDeleteOwnMessageGroupId',
  can_move_messages_out_of_channel_group: 'canMoveMessagesOutOfChannelGroupId',
  can_move_messages_within_channel_group: 'canMoveMessagesWithinChannelGroupId',
  can_send_message_group: 'canSendMessageGroupId',
  can_subscribe_group: 'canSubscribeGroupId',
  can_resolve_topics_group: 'canResolveTopicsGroupId',
} as const satisfies Record<string, keyof Stream>;

/** A channel permission setting's API name. */
export type StreamGroupSetting = keyof typeof streamGroupSettings;

/** What each setting holds on a new channel: a system group, or a group of just the creator. */
export const streamGroupDefaults: Record<StreamGroupSetting, SystemGroupName | 'creator'> = {
  can_add_subscribers_group: SystemGroup.NOBODY,
  can_remove_subscribers_group: SystemGroup.ADMINISTRATORS,
  can_administer_channel_group: 'creator',
  can_delete_any_message_group: SystemGroup.NOBODY,
  can_delete_own_message_group: SystemGroup.NOBODY,
  can_move_messages_out_of_channel_group: SystemGroup.NOBODY,
  can_move_messages_within_channel_group: SystemGroup.NOBODY,
  can_send_message_group: SystemGroup.EVERYONE,
  can_subscribe_group: SystemGroup.NOBODY,
  can_resolve_topics_group: SystemGroup.NOBODY,
};

/** Settings whose value may be `role:everyone` (the others refuse it, as Zulip does). */
export const everyoneAllowed = new Set<StreamGroupSetting>([
  'can_remove_subscribers_group',
  'can_send_message_group',
  'can_delete_own_message_group',
  'can_resolve_topics_group',
  'can_move_messages_within_channel_group',
  'can_move_messages_out_of_channel_group',
  'can_delete_any_message_group',
]);

/** The values of `topics_policy`. */
export const TOPICS_POLICIES = [
  'inherit',
  'allow_empty_topic',
  'disable_empty_topic',
  'empty_topic_only',
] as const;

/** Days after which a channel without messages stops being recently active. */
const RECENTLY_ACTIVE_DAYS = 180;
const DAY_MS = 86_400_000;

/** The IDs of the realm's system groups, by name. */
export async function systemGroupIds(
  db: Db,
  realmId: number,
): Promise<Map<SystemGroupName, number>> {
  const rows = await db.userGroup.findMany({
    where: { realmId, isSystemGroup: true },
    select: { id: true, name: true },
  });
  return new Map(rows.map((g) => [g.name as SystemGroupName, g.id]));
}

/** The channel object of Part 2.5. */
export type ChannelObject = components['schemas']['Channel'];

/** Legacy `stream_post_policy` from the system group that may post. */
function postPolicy(groupId: number, names: Map<number, SystemGroupName>): 1 | 2 | 3 | 4 {
  switch (names.get(groupId)) {
    case SystemGroup.ADMINISTRATORS:
      return 2;
    case SystemGroup.FULL_MEMBERS:
      return 3;
    case SystemGroup.MODERATORS:
      return 4;
    default:
      return 1;
  }
}

/** Per-channel counts the channel object needs: subscribers, recent traffic, last activity. */
async function channelStatistics(db: Db, streamIds: number[]) {
  const subscribers = new Map<number, number>();
  const traffic = new Map<number, { recent: number; last: Date | null }>();
  if (streamIds.length === 0) return { subscribers, traffic };
  const counts = await db.subscription.groupBy({
    by: ['streamId'],
    where: { streamId: { in: streamIds }, active: true, user: { isActive: true } },
    _count: { _all: true },
  });
  for (const c of counts) subscribers.set(c.streamId, c._count._all);
  const since = new Date(Date.now() - 28 * DAY_MS);
  const recent = await db.message.groupBy({
    by: ['streamId'],
    where: { streamId: { in: streamIds }, dateSent: { gte: since } },
    _count: { _all: true },
    _max: { dateSent: true },
  });
  for (const r of recent)
    if (r.streamId !== null)
      traffic.set(r.streamId, { recent: r._count._all, last: r._max.dateSent });
  return { subscribers, traffic };
}

/**
 * The API objects of `streams`, in the given order. Group settings are read
 * once for all channels; `defaultIds`, when given, adds `is_default`.
 */
export async function presentStreams(
  db: Db,
  streams: Stream[],
  options: { defaultIds?: Set<number> } = {},
): Promise<ChannelObject[]> {
  if (streams.length === 0) return [];
  const groupIds = streams.flatMap((s) =>
    Object.values(streamGroupSettings).map((column) => s[column]),
  );
  const [values, system, stats] = await Promise.all([
    readGroupSettingValues(db, groupIds),
    systemGroupIds(db, streams[0].realmId),
    channelStatistics(
      db,
      streams.map((s) => s.id),
    ),
  ]);
  const systemNames = new Map([...system].map(([name, id]) => [id, name]));
  const lastActive = await lastMessageDates(
    db,
    streams.filter((s) => !stats.traffic.has(s.id)).map((s) => s.id),
  );
  const now = Date.now();
  return streams.map((s) => {
    const groups = Object.fromEntries(
      Object.entries(streamGroupSettings).map(([name, column]) => [
        name,
        (values.get(s[column]) ?? s[column]) as GroupSettingValue,
      ]),
    ) as Record<StreamGroupSetting, GroupSettingValue>;
    const policy = postPolicy(s.canSendMessageGroupId, systemNames);
    const t = stats.traffic.get(s.id);
    const ageDays = (now - s.dateCreated.getTime()) / DAY_MS;
    const last = t?.last ?? lastActive.get(s.id) ?? null;
    return {
      stream_id: s.id,
      name: s.name,
      is_archived: s.isArchived,
      description: s.description,
      rendered_description: s.renderedDescription,
      date_created: Math.floor(s.dateCreated.getTime() / 1000),
      creator_id: s.creatorId,
      invite_only: s.inviteOnly,
      is_web_public: s.isWebPublic,
      stream_post_policy: policy,
      is_announcement_only: policy === 2,
      message_retention_days: s.messageRetentionDays,
      history_public_to_subscribers: s.historyPublicToSubscribers,
      topics_policy: s.topicsPolicy as ChannelObject['topics_policy'],
      first_message_id: s.firstMessageId,
      folder_id: s.folderId,
      is_recently_active:
        ageDays < RECENTLY_ACTIVE_DAYS ||
        (last !== null && now - last.getTime() < RECENTLY_ACTIVE_DAYS * DAY_MS),
      ...groups,
      stream_weekly_traffic:
        ageDays < 7 ? null : Math.round(((t?.recent ?? 0) * 7) / Math.min(28, ageDays)),
      subscriber_count: stats.subscribers.get(s.id) ?? 0,
      ...(options.defaultIds ? { is_default: options.defaultIds.has(s.id) } : {}),
    };
  });
}

/** When each channel last received a message (for channels older than the traffic window). */
async function lastMessageDates(db: Db, streamIds: number[]): Promise<Map<number, Date>> {
  if (streamIds.length === 0) return new Map();
  const rows = await db.message.groupBy({
    by: ['streamId'],
    where: { streamId: { in: streamIds } },
    _max: { dateSent: true },
  });
  return new Map(
    rows
      .filter((r) => r.streamId !== null && r._max.dateSent)
      .map((r) => [r.streamId!, r._max.dateSent!]),
  );
}

/** The channel of `realmId` with this ID, or null. */
export function streamById(db: Db, realmId: number, streamId: number): Promise<Stream | null> {
  return db.stream.findFirst({ where: { id: streamId, realmId } });
}

/** The channel of `realmId` with this name (case-insensitive, trimmed), or null. */
export function streamByName(db: Db, realmId: number, name: string): Promise<Stream | null> {
  return db.stream.findUnique({
    where: { realmId_nameLower: { realmId, nameLower: name.trim().toLowerCase() } },
  });
}

/** Checks a channel name as Zulip does; throws BAD_REQUEST with Zulip's message. */
export function checkStreamName(name: string): void {
  if (name.trim() === '') throw badRequest("Channel name can't be empty.");
  if ([...name].length > 60) throw badRequest('Channel name too long (limit: 60 characters).');
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    if (/[\p{Cc}\p{Cs}\p{Cn}]/u.test(chars[i]))
      throw badRequest(`Invalid character in channel name, at position ${i + 1}.`);
  }
}

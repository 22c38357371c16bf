// Unread messages: the `unread_msgs` object of POST /register and the
// `message_details` of events that mark messages unread. Messages in channels
// the user left are not counted; muted channels are left out of `count`.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import type { EventOf } from '../../events/queues';
import { displayTopic } from '../channels/topics';

/** Most unread messages the initial state lists (Zulip's limit). */
export const MAX_UNREAD_MESSAGES = 50000;

/** One unread message, as the unread structures need it. */
interface UnreadRow {
  id: number;
  senderId: number;
  streamId: number | null;
  topic: string;
  dmKey: string | null;
  mentioned: boolean;
  wildcard: boolean;
}

/** The user's unread messages (optionally only `messageIds`), newest first, without those of channels they left. */
async function unreadRows(
  db: Db,
  userId: number,
  messageIds?: number[],
): Promise<{ rows: UnreadRow[]; muted: Set<number> }> {
  const subs = await db.subscription.findMany({
    where: { userId },
    select: { streamId: true, active: true, isMuted: true },
  });
  const inactive = subs.filter((s) => !s.active).map((s) => s.streamId);
  const muted = new Set(subs.filter((s) => s.active && s.isMuted).map((s) => s.streamId));
  const onlyIds = messageIds
    ? messageIds.length
      ? Prisma.sql` AND um."messageId" IN (${Prisma.join(messageIds)})`
      : Prisma.sql` AND 1 = 0`
    : Prisma.empty;
  const notLeft = inactive.length
    ? Prisma.sql` AND (m."streamId" IS NULL OR m."streamId" NOT IN (${Prisma.join(inactive)}))`
    : Prisma.empty;
  // One joined query: this runs on every POST /register, over up to 50000 rows.
  const rows = await queryRows<{
    id: number | bigint;
    senderId: number;
    streamId: number | null;
    topic: string;
    dmKey: string | null;
    mentioned: boolean;
    wildcard: boolean | number;
  }>(
    db,
    Prisma.sql`
    SELECT um."messageId" AS "id", m."senderId" AS "senderId", m."streamId" AS "streamId", m."topic" AS "topic", m."dmKey" AS "dmKey",
           um."mentioned" AS "mentioned", CASE WHEN um."streamWildcardMentioned" = true OR um."topicWildcardMentioned" = true THEN 1 ELSE 0 END AS "wildcard"
    FROM "UserMessage" um JOIN "Message" m ON m."id" = um."messageId"
    WHERE um."userId" = ${userId} AND um."read" = false${onlyIds}${notLeft}
    ORDER BY um."messageId" DESC LIMIT ${MAX_UNREAD_MESSAGES}`,
  );
  return {
    muted,
    rows: rows.map((r) => ({
      ...r,
      id: Number(r.id),
      mentioned: Boolean(r.mentioned),
      wildcard: Number(r.wildcard) === 1,
    })),
  };
}

function otherUserOf(dmKey: string, userId: number): number {
  const ids = dmKey.split(',').map(Number);
  return ids.find((id) => id !== userId) ?? userId;
}

/** The `unread_msgs` object of the initial state. */
export async function unreadMessages(db: Db, userId: number, allowEmptyTopicName: boolean) {
  const { rows, muted } = await unreadRows(db, userId);
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const streams = new Map<
    string,
    { stream_id: number; topic: string; unread_message_ids: number[] }
  >();
  const mentions: number[] = [];
  let count = 0;
  for (const row of [...rows].reverse()) {
    const isMuted = row.streamId !== null && muted.has(row.streamId);
    if (row.mentioned || (row.wildcard && !isMuted)) mentions.push(row.id);
    if (row.streamId !== null) {
      const topic = displayTopic(row.topic, allowEmptyTopicName);
      const key = `${row.streamId}\u0000${topic}`;
      const entry = streams.get(key) ?? { stream_id: row.streamId, topic, unread_message_ids: [] };
      entry.unread_message_ids.push(row.id);
      streams.set(key, entry);
      if (!isMuted) count += 1;
    } else if (row.dmKey && row.dmKey.split(',').length > 2) {
      (huddles.get(row.dmKey) ?? huddles.set(row.dmKey, []).get(row.dmKey)!).push(row.id);
      count += 1;
    } else if (row.dmKey) {
      const other = otherUserOf(row.dmKey, userId);
      (pms.get(other) ?? pms.set(other, []).get(other)!).push(row.id);
      count += 1;
    }
  }
  return {
    count,
    pms: [...pms.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([id, ids]) => ({ other_user_id: id, sender_id: id, unread_message_ids: ids })),
    streams: [...streams.values()].sort(
      (a, b) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0),
    ),
    huddles: [...huddles.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: rows.length >= MAX_UNREAD_MESSAGES,
  };
}

/** What a client needs, per message ID, to put messages back among its unread ones. */
export type UnreadDetails = NonNullable<
  EventOf<'update_message_flags', 'remove'>['message_details']
>;

/** Per-message details of newly unread messages, for update_message_flags events. */
export async function unreadMessageDetails(
  db: Db,
  userId: number,
  messageIds: number[],
): Promise<UnreadDetails> {
  const { rows, muted } = await unreadRows(db, userId, messageIds);
  const out: UnreadDetails = {};
  for (const row of rows) {
    const mention = row.mentioned || row.wildcard ? { mentioned: true } : {};
    if (row.streamId !== null) {
      out[String(row.id)] = {
        type: 'stream',
        stream_id: row.streamId,
        topic: row.topic,
        unmuted_stream_msg: !muted.has(row.streamId),
        ...mention,
      };
    } else if (row.dmKey) {
      const ids = row.dmKey.split(',').map(Number);
      const others =
        ids.length > 2 ? ids.filter((id) => id !== userId) : [otherUserOf(row.dmKey, userId)];
      out[String(row.id)] = { type: 'private', user_ids: others, ...mention };
    }
  }
  return out;
}

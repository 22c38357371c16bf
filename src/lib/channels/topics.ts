// Topic names: how a sent topic is normalized, which channels accept which
// topics, how the empty topic is shown, and a channel's topic history.
import { Prisma, type Realm, type Stream } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { badRequest } from '../../errors';
import { EMPTY_TOPIC_DISPLAY_NAME, MAX_TOPIC_LENGTH } from '../constants';

/** Cuts `text` to at most `limit` characters, ending with `marker` when cut. */
export function truncate(text: string, limit: number, marker: string): string {
  const chars = [...text];
  if (chars.length <= limit) return text;
  return chars.slice(0, limit - [...marker].length).join('') + marker;
}

/**
 * The topic as stored: trimmed, cut to `max_topic_length`, with `(no topic)`
 * and the empty-topic display name read as the empty topic.
 */
export function normalizeTopic(raw: string): string {
  const topic = raw.trim();
  if (topic === '(no topic)' || topic === EMPTY_TOPIC_DISPLAY_NAME) return '';
  if (topic.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
  return truncate(topic, MAX_TOPIC_LENGTH, '...');
}

/** The topic policy that applies in `stream`: its own, or the organization's when it inherits. */
export function effectiveTopicsPolicy(
  realm: Pick<Realm, 'topicsPolicy'>,
  stream: Pick<Stream, 'topicsPolicy'>,
): string {
  return stream.topicsPolicy === 'inherit' ? realm.topicsPolicy : stream.topicsPolicy;
}

/** Refuses a topic the channel's policy does not allow, with Zulip's message. */
export function checkTopicAllowed(
  realm: Pick<Realm, 'topicsPolicy'>,
  stream: Pick<Stream, 'topicsPolicy'>,
  topic: string,
): void {
  const policy = effectiveTopicsPolicy(realm, stream);
  if (topic === '' && policy === 'disable_empty_topic') {
    throw badRequest(
      `Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} topic is not allowed in this channel.`,
    );
  }
  if (topic !== '' && policy === 'empty_topic_only') {
    throw badRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
  }
}

/** How a topic is shown to a client: the empty topic becomes its display name unless the client copes with "". */
export function displayTopic(topic: string, allowEmptyTopicName: boolean): string {
  return topic === '' && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : topic;
}

/** One topic of a channel and its latest message. */
export interface TopicEntry {
  name: string;
  max_id: number;
}

/**
 * The topics of a channel, newest first. Names that differ only in case are
 * one topic, shown with the casing of its latest message. With
 * `onlyReceivedBy`, only messages that user received count (protected history).
 * Grouping by the lowercased topic lets the (streamId, topicLower, id) index
 * answer without reading the messages themselves.
 */
export async function topicHistory(
  db: Db,
  streamId: number,
  onlyReceivedBy: number | null,
): Promise<TopicEntry[]> {
  const rows =
    onlyReceivedBy === null
      ? await queryRows<{ maxId: number | bigint }>(
          db,
          Prisma.sql`
          SELECT MAX(m."id") AS "maxId" FROM "Message" m WHERE m."streamId" = ${streamId} GROUP BY m."topicLower"`,
        )
      : await queryRows<{ maxId: number | bigint }>(
          db,
          Prisma.sql`
          SELECT MAX(m."id") AS "maxId" FROM "Message" m JOIN "UserMessage" um ON um."messageId" = m."id" AND um."userId" = ${onlyReceivedBy}
          WHERE m."streamId" = ${streamId} GROUP BY m."topicLower"`,
        );
  const ids = rows.map((r) => Number(r.maxId));
  if (ids.length === 0) return [];
  const latest = await db.message.findMany({
    where: { id: { in: ids } },
    select: { id: true, topic: true },
    orderBy: { id: 'desc' },
  });
  return latest.map((m) => ({ name: m.topic, max_id: m.id }));
}

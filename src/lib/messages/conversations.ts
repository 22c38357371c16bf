// Per-user lists of the initial state built from the user's message rows: the
// direct message conversations they took part in recently, and the messages
// they starred.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';

/** How many of the user's latest direct messages `recent_private_conversations` looks at. */
export const RECENT_DIRECT_MESSAGES = 1000;

/**
 * The direct message conversations among the user's latest direct messages,
 * newest first: each with its highest message ID and the other participants
 * (none for messages to oneself).
 */
export async function recentPrivateConversations(
  db: Db,
  userId: number,
): Promise<{ max_message_id: number; user_ids: number[] }[]> {
  const rows = await queryRows<{ dmKey: string; maxId: number | bigint }>(
    db,
    Prisma.sql`
    SELECT recent."dmKey" AS "dmKey", MAX(recent."id") AS "maxId"
    FROM (
      SELECT m."id" AS "id", m."dmKey" AS "dmKey"
      FROM "UserMessage" um JOIN "Message" m ON m."id" = um."messageId"
      WHERE um."userId" = ${userId} AND um."isPrivate" = true AND m."dmKey" IS NOT NULL
      ORDER BY um."messageId" DESC LIMIT ${RECENT_DIRECT_MESSAGES}
    ) recent
    GROUP BY recent."dmKey"
    ORDER BY MAX(recent."id") DESC`,
  );
  return rows.map((row) => ({
    max_message_id: Number(row.maxId),
    user_ids: row.dmKey
      .split(',')
      .map(Number)
      .filter((id) => id !== userId)
      .sort((a, b) => a - b),
  }));
}

/** The IDs of the messages the user starred, in increasing order. */
export async function starredMessageIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.userMessage.findMany({
    where: { userId, starred: true },
    select: { messageId: true },
    orderBy: { messageId: 'asc' },
  });
  return rows.map((r) => r.messageId);
}

// What marking a channel or a topic as read checks first: that the user may
// read the channel, and that they received messages in the topic.
import type { Stream, User } from '../../../generated/prisma/sqlite/client';
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { badRequest } from '../../errors';
import { ChannelAccess } from '../channels/stream-access';

/** The channel `streamId` when `user` may read its messages; "Invalid channel ID" otherwise. */
export async function readableChannel(db: Db, user: User, streamId: number): Promise<Stream> {
  const stream = await db.stream.findFirst({ where: { id: streamId, realmId: user.realmId } });
  if (!stream || !(await new ChannelAccess(db, user).hasContentAccess(stream)))
    throw badRequest('Invalid channel ID');
  return stream;
}

/** Whether the user holds a message of the topic `topic` (any case) of channel `streamId`. */
export async function topicReceived(
  db: Db,
  userId: number,
  streamId: number,
  topic: string,
): Promise<boolean> {
  const rows = await queryRows<{ one: number }>(
    db,
    Prisma.sql`SELECT 1 AS "one" FROM "Message" m JOIN "UserMessage" um ON um."messageId" = m."id" AND um."userId" = ${userId}
      WHERE m."streamId" = ${streamId} AND m."topicLower" = ${topic.toLowerCase()} LIMIT 1`,
  );
  return rows.length > 0;
}

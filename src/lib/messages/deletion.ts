// Who hears that messages were deleted, and the delete_message events they
// get. Deleted messages are always of one conversation: a channel topic, or
// one direct-message conversation.
import type { Stream } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import type { EventBus } from '../../events/bus';
import { Role } from '../constants';
import { activeSubscriberIds } from '../channels/stream-audience';

/** The capability with which a client takes one event for many deleted messages. */
export const BULK_DELETION_CAPABILITY = 'bulk_message_deletion';

/**
 * The users who may read the messages and so hear about their deletion
 * (asked before the rows go): for direct messages, their recipients; in a
 * channel with protected history, subscribers who received them; in another
 * private channel, its subscribers; in a public channel, its subscribers and
 * the other non-guests who hold rows for them (who read them while
 * subscribed, or starred or reacted to them).
 */
export async function deletionAudience(
  db: Db,
  messageIds: number[],
  stream: Pick<Stream, 'id' | 'inviteOnly' | 'historyPublicToSubscribers'> | null,
): Promise<Set<number>> {
  const holders = await db.userMessage.findMany({
    where: { messageId: { in: messageIds }, user: { isActive: true } },
    select: { userId: true, user: { select: { role: true } } },
    distinct: ['userId'],
  });
  if (stream === null) return new Set(holders.map((h) => h.userId));
  const subscribers = new Set(await activeSubscriberIds(db, stream.id));
  if (!stream.historyPublicToSubscribers)
    return new Set(holders.map((h) => h.userId).filter((id) => subscribers.has(id)));
  if (stream.inviteOnly) return subscribers;
  for (const h of holders) if (h.user.role < Role.GUEST) subscribers.add(h.userId);
  return subscribers;
}

/** What was deleted: message IDs of one conversation, with its channel and topic for channel messages. */
export interface Deletion {
  messageIds: number[];
  channel: { streamId: number; topic: string } | null;
}

/**
 * Publishes a deletion to `userIds`: one delete_message event listing every
 * message to clients with the bulk_message_deletion capability, and one event
 * per message, in ascending order, to the others.
 */
export function publishDeletion(
  bus: EventBus,
  deletion: Deletion,
  userIds: Iterable<number>,
): void {
  const ids = [...deletion.messageIds].sort((a, b) => a - b);
  const where = deletion.channel
    ? {
        message_type: 'stream' as const,
        stream_id: deletion.channel.streamId,
        topic: deletion.channel.topic,
      }
    : { message_type: 'private' as const };
  const users = [...userIds];
  bus.publish({ type: 'delete_message', message_ids: ids, ...where }, users, {
    capability: BULK_DELETION_CAPABILITY,
    event: null,
  });
  for (const id of ids)
    bus.publishLegacy(
      { type: 'delete_message', message_id: id, ...where },
      users,
      BULK_DELETION_CAPABILITY,
    );
}

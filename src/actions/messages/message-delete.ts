// Deleting messages: one message (DELETE /messages/{id}), allowed to holders
// of the organization's or the channel's can_delete_any_message_group, and to
// the sender holding either can_delete_own_message_group; and a whole topic
// (POST /streams/{id}/delete_topic, administrators), in batches that each
// commit on their own. Messages go with their rows; afterwards those who could
// read them get delete_message events, a channel whose oldest message went
// gets its new first_message_id, and the owners of files the messages linked
// get attachment updates.
import type { Message, Realm, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { ChannelAccess, isAdmin } from '../../lib/channels/stream-access';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../lib/constants';
import { deletionAudience, publishDeletion } from '../../lib/messages/deletion';
import { accessMessage, invalidMessage } from '../../lib/messages/message-access';
import type { Services } from '../../services';
import { publishAttachmentUpdates } from '../uploads/uploads';

/** Messages deleted per transaction when a topic is deleted. */
export const TOPIC_DELETE_BATCH_SIZE = 100;
/** After this long, topic deletion stops and answers `complete: false`. */
export const TOPIC_DELETE_TIME_LIMIT_MS = 50_000;

/** Deletes a message `user` may read and is allowed to delete. */
export async function doDeleteMessage(
  services: Services,
  realm: Realm,
  user: User,
  messageId: number,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const { message } = await accessMessage(tx, user, messageId);
    const stream =
      message.streamId !== null
        ? await tx.stream.findUniqueOrThrow({ where: { id: message.streamId } })
        : null;
    // Messages of archived channels can no longer change.
    if (stream?.isArchived) throw invalidMessage();
    const access = new ChannelAccess(tx, user);
    const holdsEither = async (realmGroup: number, channelGroup: number | undefined) =>
      (await access.holds(realmGroup)) ||
      (channelGroup !== undefined && (await access.holds(channelGroup)));
    const mayDeleteAny = await holdsEither(
      realm.canDeleteAnyMessageGroupId,
      stream?.canDeleteAnyMessageGroupId,
    );
    if (!mayDeleteAny) {
      const mayDeleteOwn =
        message.senderId === user.id &&
        (await holdsEither(realm.canDeleteOwnMessageGroupId, stream?.canDeleteOwnMessageGroupId));
      if (!mayDeleteOwn) throw badRequest("You don't have permission to delete this message");
    }
    await deleteMessagesIn(tx, onCommit, services, user, [message], stream);
  });
}

/**
 * Deletes every message of a topic that `user`, an administrator, may read,
 * newest first, in batches that each commit; returns false when the time
 * limit ran out before the last batch.
 */
export async function doDeleteTopic(
  services: Services,
  user: User,
  streamId: number,
  topicName: string,
  timeLimitMs = TOPIC_DELETE_TIME_LIMIT_MS,
): Promise<boolean> {
  if (!isAdmin(user))
    throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const stream = await services.db.read(async (db) => {
    const found = await db.stream.findFirst({ where: { id: streamId, realmId: user.realmId } });
    if (!found || !(await new ChannelAccess(db, user).hasContentAccess(found)))
      throw badRequest('Invalid channel ID');
    return found;
  });
  const topicLower = (topicName === EMPTY_TOPIC_DISPLAY_NAME ? '' : topicName).toLowerCase();
  // Without shared history, only the messages the administrator received.
  const onlyReceived = !stream.historyPublicToSubscribers && !stream.isWebPublic;
  const started = Date.now();
  for (;;) {
    if (Date.now() - started >= timeLimitMs) return false;
    const deleted = await services.db.write(async (tx, onCommit) => {
      const batch = await tx.message.findMany({
        where: {
          realmId: user.realmId,
          streamId: stream.id,
          topicLower,
          ...(onlyReceived ? { userMessages: { some: { userId: user.id } } } : {}),
        },
        orderBy: { id: 'desc' },
        take: TOPIC_DELETE_BATCH_SIZE,
      });
      if (batch.length === 0) return 0;
      const current = await tx.stream.findUniqueOrThrow({ where: { id: stream.id } });
      await deleteMessagesIn(tx, onCommit, services, user, batch, current);
      return batch.length;
    });
    if (deleted === 0) return true;
  }
}

/**
 * Deletes `messages`, all of one conversation (of `stream`, or direct), with
 * their rows, inside the open transaction; the events go out on commit.
 */
async function deleteMessagesIn(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  actor: User,
  messages: Message[],
  stream: Stream | null,
): Promise<void> {
  const messageIds = messages.map((m) => m.id);
  const audience = await deletionAudience(tx, messageIds, stream);
  // The one who deletes always hears of it.
  audience.add(actor.id);
  const linked = await tx.attachmentMessage.findMany({
    where: { messageId: { in: messageIds } },
    select: { attachmentId: true },
  });
  await tx.reaction.deleteMany({ where: { messageId: { in: messageIds } } });
  await tx.attachmentMessage.deleteMany({ where: { messageId: { in: messageIds } } });
  await tx.userMessage.deleteMany({ where: { messageId: { in: messageIds } } });
  await tx.message.deleteMany({ where: { id: { in: messageIds } } });
  const users = [...audience];
  if (
    stream !== null &&
    stream.firstMessageId !== null &&
    messageIds.includes(stream.firstMessageId)
  ) {
    const first = await tx.message.findFirst({
      where: { streamId: stream.id },
      orderBy: { id: 'asc' },
      select: { id: true },
    });
    const value = first?.id ?? null;
    await tx.stream.update({ where: { id: stream.id }, data: { firstMessageId: value } });
    onCommit(() =>
      services.bus.publish(
        {
          type: 'stream',
          op: 'update',
          property: 'first_message_id',
          value,
          stream_id: stream.id,
          name: stream.name,
        },
        users,
      ),
    );
  }
  // Messages of a channel are grouped by topic regardless of case; the event names it in lower case.
  const channel =
    stream !== null ? { streamId: stream.id, topic: messages[0].topic.toLowerCase() } : null;
  onCommit(() => publishDeletion(services.bus, { messageIds, channel }, users));
  await publishAttachmentUpdates(tx, onCommit, services, [
    ...new Set(linked.map((l) => l.attachmentId)),
  ]);
}

// Deleting a message (DELETE /messages/{id}): allowed to holders of the
// organization's or the channel's can_delete_any_message_group, and to the
// sender holding either can_delete_own_message_group. The message and its
// rows go in one transaction; its recipients then get a delete_message event.
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import { badRequest } from '../errors';
import { accessMessage } from '../lib/messages/message-access';
import { ChannelAccess } from '../lib/channels/stream-access';
import type { Services } from '../services';

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
    const recipients = (
      await tx.userMessage.findMany({ where: { messageId }, select: { userId: true } })
    ).map((r) => r.userId);
    await tx.reaction.deleteMany({ where: { messageId } });
    await tx.attachmentMessage.deleteMany({ where: { messageId } });
    await tx.userMessage.deleteMany({ where: { messageId } });
    await tx.message.delete({ where: { id: messageId } });
    const event =
      stream !== null
        ? {
            type: 'delete_message',
            message_ids: [messageId],
            message_type: 'stream',
            stream_id: stream.id,
            topic: message.topic,
          }
        : { type: 'delete_message', message_ids: [messageId], message_type: 'private' };
    onCommit(() => services.bus.publish(event, recipients));
  });
}

// Typing notifications (POST /typing and POST /messages/{id}/typing). Nothing
// is stored: each request is checked and turned into one event for the other
// participants of the conversation (and the typist's own other clients).
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { badRequest } from '../../errors';
import { accessMessage } from '../../lib/messages/message-access';
import { checkCanPost } from '../../lib/messages/message-send';
import { dmParticipants } from '../../lib/messages/messages';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { normalizeTopic } from '../../lib/channels/topics';
import { channelTypingAudience, checkCanEditContent } from '../../lib/messages/typing';
import { apiEmail, realmHost } from '../../lib/users/users';
import type { EventBody } from '../../events/queues';
import type { Services } from '../../services';

/** What POST /typing asks. */
export interface TypingRequest {
  op: 'start' | 'stop';
  type: 'direct' | 'stream' | 'channel';
  to?: number[];
  streamId?: number;
  topic?: string;
}

/** Tells a conversation's participants that `user` started or stopped composing. */
export async function doSetTypingStatus(
  services: Services,
  realm: Realm,
  user: User,
  request: TypingRequest,
): Promise<void> {
  const host = realmHost(realm, services.config.externalUrl);
  const sender = { user_id: user.id, email: apiEmail(user, host) };
  if (request.type === 'stream' || request.type === 'channel') {
    if (request.streamId === undefined) throw badRequest("Missing 'stream_id' argument");
    if (request.topic === undefined) throw badRequest('Missing topic');
    if (!user.sendStreamTypingNotifications)
      throw badRequest('User has disabled typing notifications for channel messages');
    const streamId = request.streamId;
    const audience = await services.db.read(async (db) => {
      const stream = await db.stream.findFirst({ where: { id: streamId, realmId: realm.id } });
      const access = new ChannelAccess(db, user);
      if (!stream || !(await access.hasContentAccess(stream)))
        throw badRequest('Invalid channel ID');
      await checkCanPost(db, access, stream);
      return channelTypingAudience(db, stream.id);
    });
    if (audience === null) return;
    const event: EventBody = {
      type: 'typing',
      message_type: 'stream',
      op: request.op,
      sender,
      stream_id: streamId,
      topic: normalizeTopic(request.topic),
    };
    // Only clients that declared stream_typing_notifications get channel typing.
    services.bus.publish(event, audience, {
      capability: 'stream_typing_notifications',
      event: null,
    });
    return;
  }
  if (request.to === undefined) throw badRequest("Missing 'to' argument");
  if (request.to.length === 0) throw badRequest("Empty 'to' list");
  if (!user.sendPrivateTypingNotifications)
    throw badRequest('User has disabled typing notifications for direct messages');
  const ids = [...new Set([...request.to, user.id])];
  const users = await services.db.read((db) =>
    db.user.findMany({ where: { id: { in: ids }, realmId: realm.id } }),
  );
  const byId = new Map(users.map((u) => [u.id, u]));
  for (const id of ids) if (!byId.has(id)) throw badRequest(`Invalid user ID ${id}`);
  const people = ids.map((id) => byId.get(id)!);
  const event: EventBody = {
    type: 'typing',
    message_type: 'direct',
    op: request.op,
    sender,
    recipients: people.map((u) => ({ user_id: u.id, email: apiEmail(u, host) })),
  };
  services.bus.publish(
    event,
    people.filter((u) => u.isActive && u.receivesTypingNotifications).map((u) => u.id),
  );
}

/** Tells a message's conversation that its sender started or stopped editing it. */
export async function doSetMessageEditTypingStatus(
  services: Services,
  realm: Realm,
  user: User,
  messageId: number,
  op: 'start' | 'stop',
): Promise<void> {
  const found = await services.db.read(async (db) => {
    const { message } = await accessMessage(db, user, messageId);
    const stream =
      message.streamId !== null
        ? await db.stream.findUnique({ where: { id: message.streamId } })
        : null;
    if (stream?.isArchived) throw badRequest('Invalid message(s)');
    checkCanEditContent(realm, user, message);
    if (stream) {
      if (!user.sendStreamTypingNotifications)
        throw badRequest('User has disabled typing notifications for channel messages');
      return {
        recipient: { type: 'channel' as const, channel_id: stream.id, topic: message.topic },
        audience: await channelTypingAudience(db, stream.id),
      };
    }
    if (!user.sendPrivateTypingNotifications)
      throw badRequest('User has disabled typing notifications for direct messages');
    const participants = await db.user.findMany({
      where: { id: { in: dmParticipants(message.dmKey) }, isActive: true },
      select: { id: true, receivesTypingNotifications: true },
      orderBy: { id: 'asc' },
    });
    return {
      recipient: { type: 'direct' as const, user_ids: participants.map((u) => u.id) },
      audience: participants.filter((u) => u.receivesTypingNotifications).map((u) => u.id),
    };
  });
  if (found.audience === null) return;
  services.bus.publish(
    {
      type: 'typing_edit_message',
      op,
      sender_id: user.id,
      message_id: messageId,
      recipient: found.recipient,
    },
    found.audience,
  );
}

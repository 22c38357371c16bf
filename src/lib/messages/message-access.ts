// Who may read a message. A direct message is readable only by its
// participants (those holding a UserMessage row); a channel message by anyone
// with access to the channel's content, except that in a channel with
// protected history a user must also have received it. An inaccessible
// message answers exactly as a nonexistent one ("Invalid message(s)").
import type { Message, Stream, User, UserMessage } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import { ChannelAccess } from '../channels/stream-access';

/** The error of every message that does not exist or may not be read. */
export function invalidMessage(): Error {
  return badRequest('Invalid message(s)');
}

/** Whether `access.user` may read `message`, given their row for it (if any) and its channel. */
export async function canReadMessage(
  access: ChannelAccess,
  message: Pick<Message, 'streamId'>,
  userMessage: UserMessage | null | undefined,
  stream: Stream | null | undefined,
): Promise<boolean> {
  if (message.streamId === null) return Boolean(userMessage);
  if (!stream) return false;
  if (!stream.historyPublicToSubscribers && !stream.isWebPublic) {
    return Boolean(userMessage) && (await access.isSubscribed(stream));
  }
  return access.hasContentAccess(stream);
}

/** The messages of `ids` that `user` may read, with their rows, keyed by message ID. */
export async function readableMessages(
  db: Db,
  user: User,
  ids: number[],
): Promise<Map<number, { message: Message; userMessage: UserMessage | null }>> {
  const out = new Map<number, { message: Message; userMessage: UserMessage | null }>();
  if (ids.length === 0) return out;
  const [messages, rows] = await Promise.all([
    db.message.findMany({ where: { id: { in: ids }, realmId: user.realmId } }),
    db.userMessage.findMany({ where: { userId: user.id, messageId: { in: ids } } }),
  ]);
  const streamIds = [
    ...new Set(messages.map((m) => m.streamId).filter((id): id is number => id !== null)),
  ];
  const streams = new Map(
    (await db.stream.findMany({ where: { id: { in: streamIds } } })).map((s) => [s.id, s]),
  );
  const rowOf = new Map(rows.map((r) => [r.messageId, r]));
  const access = new ChannelAccess(db, user);
  for (const message of messages) {
    const userMessage = rowOf.get(message.id) ?? null;
    const stream = message.streamId !== null ? streams.get(message.streamId) : null;
    if (await canReadMessage(access, message, userMessage, stream))
      out.set(message.id, { message, userMessage });
  }
  return out;
}

/** One message `user` may read, or "Invalid message(s)". */
export async function accessMessage(
  db: Db,
  user: User,
  messageId: number,
): Promise<{ message: Message; userMessage: UserMessage | null }> {
  const found = (await readableMessages(db, user, [messageId])).get(messageId);
  if (!found) throw invalidMessage();
  return found;
}

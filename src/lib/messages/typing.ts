// Typing notifications: who hears that someone is composing in a
// conversation, and whether a user may announce editing a message. The server
// keeps no typing state; clients time notices out themselves.
import type { Message, Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';

/** Channels with more active subscribers than this get no typing notifications. */
export const MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

/**
 * The active subscribers of a channel who should hear typing there (those who
 * turned off receives_typing_notifications hear none), or null when the
 * channel is too large for typing notifications.
 */
export async function channelTypingAudience(db: Db, streamId: number): Promise<number[] | null> {
  const subs = await db.subscription.findMany({
    where: { streamId, active: true, user: { isActive: true } },
    select: { userId: true, user: { select: { receivesTypingNotifications: true } } },
  });
  if (subs.length > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return null;
  return subs.filter((s) => s.user.receivesTypingNotifications).map((s) => s.userId);
}

/**
 * Refuses a user who may not edit `message`'s content right now: editing is
 * off, the user is not its sender, or the edit time limit has passed (no grace).
 */
export function checkCanEditContent(
  realm: Pick<Realm, 'allowMessageEditing' | 'messageContentEditLimitSeconds'>,
  user: Pick<User, 'id'>,
  message: Pick<Message, 'senderId' | 'dateSent'>,
): void {
  if (!realm.allowMessageEditing)
    throw badRequest('Your organization has turned off message editing');
  if (message.senderId !== user.id)
    throw badRequest("You don't have permission to edit this message");
  const limit = realm.messageContentEditLimitSeconds;
  if (limit !== null && Date.now() - message.dateSent.getTime() > limit * 1000)
    throw badRequest('The time limit for editing this message has passed');
}

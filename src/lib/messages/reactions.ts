// Emoji reactions: the errors of adding and removing one, the form of an
// emoji code, and who hears about a change (emoji lookups: lib/emoji/lookup.ts).
import type { Message, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import type { EventOf } from '../../events/queues';
import { ApiError, badRequest } from '../../errors';
import type { EmojiRef } from '../emoji/lookup';
import { ReactionType } from '../emoji/emoji';

/** "Reaction already exists." */
export function reactionExists(): ApiError {
  return new ApiError('Reaction already exists.', 'REACTION_ALREADY_EXISTS');
}

/** "Reaction doesn't exist." */
export function reactionMissing(): ApiError {
  return new ApiError("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST');
}

/**
 * Refuses an emoji code that cannot be a code of its type at all (removal
 * does not check that the emoji still exists, only that the code is sound).
 */
export function checkEmojiCodeForm(emoji: EmojiRef): void {
  const forms: Record<string, RegExp> = {
    [ReactionType.UNICODE]: /^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/,
    [ReactionType.REALM]: /^\d+$/,
    [ReactionType.EXTRA]: /^[a-z0-9_+-]+$/,
  };
  if (!forms[emoji.type]?.test(emoji.code)) throw badRequest('Invalid emoji code.');
}

/**
 * Who hears about a change to a message: everyone holding a row for it and,
 * in a channel whose history is open to subscribers, every active subscriber.
 */
export async function messageAudience(
  db: Db,
  message: Pick<Message, 'id' | 'streamId'>,
): Promise<number[]> {
  const holders = await db.userMessage.findMany({
    where: { messageId: message.id },
    select: { userId: true },
  });
  const ids = new Set(holders.map((h) => h.userId));
  if (message.streamId !== null) {
    const stream = await db.stream.findUnique({
      where: { id: message.streamId },
      select: { historyPublicToSubscribers: true },
    });
    if (stream?.historyPublicToSubscribers) {
      const subs = await db.subscription.findMany({
        where: { streamId: message.streamId, active: true, user: { isActive: true } },
        select: { userId: true },
      });
      for (const s of subs) ids.add(s.userId);
    }
  }
  return [...ids];
}

/** The body of a reaction event. */
export function reactionEvent(
  op: 'add' | 'remove',
  user: Pick<User, 'id' | 'fullName'>,
  email: string,
  messageId: number,
  name: string,
  emoji: EmojiRef,
): EventOf<'reaction'> {
  return {
    type: 'reaction',
    op,
    user_id: user.id,
    user: { user_id: user.id, email, full_name: user.fullName },
    message_id: messageId,
    emoji_name: name,
    emoji_code: emoji.code,
    reaction_type: emoji.type as EventOf<'reaction'>['reaction_type'],
  };
}

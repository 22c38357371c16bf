// Emoji reactions: turning a name into a (code, type) pair, checking that a
// new reaction names a real emoji, and working out who hears about a change.
import type { Message, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { extraEmoji, ReactionType, unicodeEmojiCode, unicodeEmojiName } from '../emoji/emoji';

/** An emoji as a reaction stores it. */
export interface EmojiRef {
  code: string;
  type: string;
}

/** "Reaction already exists." */
export function reactionExists(): ApiError {
  return new ApiError('Reaction already exists.', 'REACTION_ALREADY_EXISTS');
}

/** "Reaction doesn't exist." */
export function reactionMissing(): ApiError {
  return new ApiError("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST');
}

/**
 * The code and type of the emoji called `name`: an active custom emoji of the
 * organization first, then the extra emoji (`zulip`), then Unicode emoji.
 */
export async function emojiByName(db: Db, realmId: number, name: string): Promise<EmojiRef> {
  const custom = await db.realmEmoji.findFirst({ where: { realmId, name, deactivated: false }, orderBy: { id: 'desc' }, select: { id: true } });
  if (custom) return { code: String(custom.id), type: ReactionType.REALM };
  if (extraEmoji.has(name)) return { code: name, type: ReactionType.EXTRA };
  const code = unicodeEmojiCode(name);
  if (code !== undefined) return { code, type: ReactionType.UNICODE };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Refuses a new reaction whose name, code and type do not name one usable emoji. */
export async function checkEmoji(db: Db, realmId: number, name: string, emoji: EmojiRef): Promise<void> {
  if (emoji.type === ReactionType.REALM) {
    const custom = /^\d+$/.test(emoji.code) ? await db.realmEmoji.findFirst({ where: { id: Number(emoji.code), realmId } }) : null;
    if (!custom) throw badRequest('Invalid custom emoji.');
    if (custom.name !== name) throw badRequest('Invalid custom emoji name.');
    if (custom.deactivated) throw badRequest('This custom emoji has been deactivated.');
  } else if (emoji.type === ReactionType.EXTRA) {
    if (!extraEmoji.has(emoji.code)) throw badRequest('Invalid emoji code.');
    if (name !== emoji.code) throw badRequest('Invalid emoji name.');
  } else if (emoji.type === ReactionType.UNICODE) {
    if (unicodeEmojiName(emoji.code) === undefined) throw badRequest('Invalid emoji code.');
    if (unicodeEmojiCode(name) !== emoji.code) throw badRequest('Invalid emoji name.');
  } else {
    throw badRequest('Invalid emoji type.');
  }
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
export async function messageAudience(db: Db, message: Pick<Message, 'id' | 'streamId'>): Promise<number[]> {
  const holders = await db.userMessage.findMany({ where: { messageId: message.id }, select: { userId: true } });
  const ids = new Set(holders.map((h) => h.userId));
  if (message.streamId !== null) {
    const stream = await db.stream.findUnique({ where: { id: message.streamId }, select: { historyPublicToSubscribers: true } });
    if (stream?.historyPublicToSubscribers) {
      const subs = await db.subscription.findMany({ where: { streamId: message.streamId, active: true, user: { isActive: true } }, select: { userId: true } });
      for (const s of subs) ids.add(s.userId);
    }
  }
  return [...ids];
}

/** The body of a reaction event. */
export function reactionEvent(op: 'add' | 'remove', user: Pick<User, 'id' | 'fullName'>, email: string, messageId: number, name: string, emoji: EmojiRef): Record<string, unknown> & { type: string } {
  return {
    type: 'reaction',
    op,
    user_id: user.id,
    user: { user_id: user.id, email, full_name: user.fullName },
    message_id: messageId,
    emoji_name: name,
    emoji_code: emoji.code,
    reaction_type: emoji.type,
  };
}

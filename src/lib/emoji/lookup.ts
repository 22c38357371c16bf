// Emoji by name, for reactions and statuses alike: a name is looked up among
// the organization's active custom emoji first, then the extra emoji
// (`zulip`), then Unicode emoji (by canonical name or alias); a (name, code,
// type) triple must agree.
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import { extraEmoji, ReactionType, unicodeEmojiCode, unicodeEmojiName } from './emoji';

/** An emoji as reactions and statuses store it: its code within the namespace `type`. */
export interface EmojiRef {
  code: string;
  type: string;
}

/**
 * The code and type of the emoji called `name`: an active custom emoji of the
 * organization first, then the extra emoji (`zulip`), then Unicode emoji.
 */
export async function emojiByName(db: Db, realmId: number, name: string): Promise<EmojiRef> {
  const custom = await db.realmEmoji.findFirst({
    where: { realmId, name, deactivated: false },
    orderBy: { id: 'desc' },
    select: { id: true },
  });
  if (custom) return { code: String(custom.id), type: ReactionType.REALM };
  if (extraEmoji.has(name)) return { code: name, type: ReactionType.EXTRA };
  const code = unicodeEmojiCode(name);
  if (code !== undefined) return { code, type: ReactionType.UNICODE };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Refuses a name, code and type that do not name one usable emoji (a new reaction, a status). */
export async function checkEmoji(
  db: Db,
  realmId: number,
  name: string,
  emoji: EmojiRef,
): Promise<void> {
  if (emoji.type === ReactionType.REALM) {
    const custom = /^\d+$/.test(emoji.code)
      ? await db.realmEmoji.findFirst({ where: { id: Number(emoji.code), realmId } })
      : null;
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

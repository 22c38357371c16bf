// Adding and removing emoji reactions. A reaction names its emoji by code and
// type; a Unicode emoji is stored under its canonical name whichever alias was
// used, and a second user reacting with the same code votes for the existing
// reaction and takes its name. Everyone who can read the message hears of it.
import { Prisma, type Realm, type User } from '../../../generated/prisma/sqlite/client';
import { badRequest } from '../../errors';
import { accessMessage } from '../../lib/messages/message-access';
import { checkEmoji, emojiByName, type EmojiRef } from '../../lib/emoji/lookup';
import { normalizeReactionType, storedEmojiName } from '../../lib/emoji/emoji';
import {
  checkEmojiCodeForm,
  messageAudience,
  reactionEvent,
  reactionExists,
  reactionMissing,
} from '../../lib/messages/reactions';
import { apiEmail, realmHost } from '../../lib/users/users';
import type { Services } from '../../services';
import { executeRows, refuseDuplicate, type Db } from '../../db/client';

/** Refuses messages of archived channels, which can no longer change. */
async function checkModifiable(db: Db, streamId: number | null): Promise<void> {
  if (streamId === null) return;
  const stream = await db.stream.findUnique({
    where: { id: streamId },
    select: { isArchived: true },
  });
  if (stream?.isArchived) throw badRequest('Invalid message(s)');
}

/** Adds `user`'s reaction to a message; the code and type default to those of the name. */
export async function doAddReaction(
  services: Services,
  realm: Realm,
  user: User,
  messageId: number,
  name: string,
  code: string | undefined,
  type: string | undefined,
): Promise<void> {
  const host = realmHost(realm, services.config.externalUrl);
  if (type !== undefined) type = normalizeReactionType(type);
  await services.db.write(async (tx, onCommit) => {
    const { message, userMessage } = await accessMessage(tx, user, messageId);
    await checkModifiable(tx, message.streamId);
    let emoji: EmojiRef;
    if (code === undefined || type === undefined) {
      const found = await emojiByName(tx, realm.id, name);
      emoji = { code: code ?? found.code, type: type ?? found.type };
    } else {
      emoji = { code, type };
    }
    const same = { messageId: message.id, emojiCode: emoji.code, reactionType: emoji.type };
    if (await tx.reaction.findFirst({ where: { ...same, userId: user.id }, select: { id: true } }))
      throw reactionExists();
    const earlier = await tx.reaction.findFirst({
      where: same,
      orderBy: { id: 'asc' },
      select: { emojiName: true },
    });
    // A vote for an existing reaction keeps its name, even if that emoji is no longer valid.
    if (earlier) {
      name = earlier.emojiName;
    } else {
      await checkEmoji(tx, realm.id, name, emoji);
      name = storedEmojiName(name, emoji);
    }
    // Another reaction of this user to this message may add the row at the same moment.
    if (!userMessage)
      await executeRows(
        tx,
        Prisma.sql`INSERT INTO "UserMessage" ("userId", "messageId", "historical", "read") VALUES (${user.id}, ${message.id}, TRUE, TRUE) ON CONFLICT ("userId", "messageId") DO NOTHING`,
      );
    // The same reaction sent twice at once: the second is refused as a plain duplicate is.
    await tx.reaction
      .create({ data: { ...same, userId: user.id, emojiName: name } })
      .catch(refuseDuplicate(reactionExists));
    const audience = await messageAudience(tx, message);
    const event = reactionEvent('add', user, apiEmail(user, host), message.id, name, emoji);
    onCommit(() => services.bus.publish(event, audience));
  });
}

/**
 * Removes `user`'s reaction. Without a code the name is resolved as for adding
 * (so a custom emoji needs `reaction_type=realm_emoji` and its code).
 */
export async function doRemoveReaction(
  services: Services,
  realm: Realm,
  user: User,
  messageId: number,
  name: string | undefined,
  code: string | undefined,
  type: string,
): Promise<void> {
  const host = realmHost(realm, services.config.externalUrl);
  type = normalizeReactionType(type);
  await services.db.write(async (tx, onCommit) => {
    const { message } = await accessMessage(tx, user, messageId);
    await checkModifiable(tx, message.streamId);
    if (code === undefined) {
      if (name === undefined)
        throw badRequest(
          'At least one of the following arguments must be present: emoji_name, emoji_code',
        );
      code = (await emojiByName(tx, realm.id, name)).code;
    }
    const emoji = { code, type };
    checkEmojiCodeForm(emoji);
    const reaction = await tx.reaction.findFirst({
      where: { messageId: message.id, userId: user.id, emojiCode: code, reactionType: type },
    });
    if (!reaction) throw reactionMissing();
    await tx.reaction.delete({ where: { id: reaction.id } });
    const audience = await messageAudience(tx, message);
    const event = reactionEvent(
      'remove',
      user,
      apiEmail(user, host),
      message.id,
      reaction.emojiName,
      emoji,
    );
    onCommit(() => services.bus.publish(event, audience));
  });
}

// Setting a user's status (text and emoji), and the legacy `away` switch,
// with a user_status event to the whole organization.
import { userIdsWhoCanAccess } from '../../lib/users/user-access';
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { normalizeReactionType, ReactionType, storedEmojiName } from '../../lib/emoji/emoji';
import { checkEmoji, emojiByName } from '../../lib/emoji/lookup';
import type { EventOf } from '../../events/queues';
import type { Services } from '../../services';

/** The fields of a status request; absent fields stay as they are. */
export interface StatusChange {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/**
 * Checks and applies a status change to `target` (the requester, or a user an
 * administrator acts for), following Zulip's order of checks.
 */
export async function doUpdateUserStatus(
  services: Services,
  target: User,
  change: StatusChange,
): Promise<void> {
  const statusText = change.statusText?.trim();
  let { emojiName, emojiCode, reactionType } = change;
  if (reactionType !== undefined) reactionType = normalizeReactionType(reactionType);
  if (change.away === undefined && statusText === undefined && emojiName === undefined)
    throw new ApiError('Client did not pass any new values.');
  if (emojiName === '') {
    emojiCode = '';
    reactionType = ReactionType.UNICODE;
  } else if (emojiName !== undefined) {
    if (emojiCode === undefined || reactionType === undefined) {
      const found = await services.db.read((db) => emojiByName(db, target.realmId, emojiName!));
      emojiCode ??= found.code;
      reactionType ??= found.type;
    }
    const emoji = { code: emojiCode!, type: reactionType! };
    await services.db.read((db) => checkEmoji(db, target.realmId, emojiName!, emoji));
    // A Unicode emoji is stored and reported under its canonical name.
    emojiName = storedEmojiName(emojiName, emoji);
  } else if (emojiCode || reactionType) {
    throw new ApiError(
      'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
    );
  }

  await services.db.write(async (tx, onCommit) => {
    const presenceChanged = change.away !== undefined && target.presenceEnabled === change.away;
    if (presenceChanged)
      await tx.user.update({ where: { id: target.id }, data: { presenceEnabled: !change.away } });
    const data = {
      ...(statusText !== undefined ? { statusText } : {}),
      ...(emojiName !== undefined
        ? { emojiName, emojiCode: emojiCode!, reactionType: reactionType! }
        : {}),
      timestamp: new Date(),
    };
    await tx.userStatus.upsert({
      where: { userId: target.id },
      create: { userId: target.id, ...data },
      update: data,
    });
    const everyone = await userIdsWhoCanAccess(tx, target);
    const event: EventOf<'user_status'> = { type: 'user_status', user_id: target.id };
    if (change.away !== undefined) event.away = change.away;
    if (statusText !== undefined) event.status_text = statusText;
    if (emojiName !== undefined)
      Object.assign(event, {
        emoji_name: emojiName,
        emoji_code: emojiCode,
        reaction_type: reactionType,
      });
    onCommit(() => {
      if (presenceChanged) {
        services.auth.forgetUser(target.id);
        services.bus.publish(
          {
            type: 'user_settings',
            op: 'update',
            property: 'presence_enabled',
            value: !change.away,
          },
          [target.id],
        );
      }
      services.bus.publish(event, everyone);
    });
  });
}

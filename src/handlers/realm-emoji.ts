// GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}.
import { doAddRealmEmoji, doRemoveRealmEmoji } from '../actions/emoji/realm-emoji';
import { ApiError } from '../errors';
import { unicodeEmojiCode } from '../lib/emoji/emoji';
import { userHoldsRealmPermission } from '../lib/groups/permissions';
import { MAX_EMOJI_FILE_SIZE_MIB, checkEmojiName, realmEmojiMap } from '../lib/emoji/realm-emoji';
import { Role } from '../lib/constants';
import { fileTooLarge } from '../lib/uploads/uploads';
import type { Handler, HandlerMap } from './types';

/** Lists the organization's custom emoji, deactivated ones included. */
export const getCustomEmoji: Handler<'get-custom-emoji'> = async ({ services, realm }) => ({
  emoji: await services.db.read((db) => realmEmojiMap(db, realm.id)),
});

/** Adds the request's one image as a custom emoji named by the path. */
export const uploadCustomEmoji: Handler<'upload-custom-emoji'> = async ({
  params,
  services,
  user,
  realm,
  files,
}) => {
  if (user.role === Role.GUEST) throw new ApiError('Not allowed for guest users');
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  const name = checkEmojiName(params.emoji_name);
  const [allowed, taken] = await services.db.read(async (db) => [
    await userHoldsRealmPermission(db, user, 'can_add_custom_emoji_group'),
    await db.realmEmoji.findFirst({
      where: { realmId: realm.id, name, deactivated: false },
      select: { id: true },
    }),
  ]);
  if (!allowed) throw new ApiError('Insufficient permission');
  if (taken) throw new ApiError('A custom emoji with this name already exists.');
  const all = Object.values(files);
  if (all.length !== 1) throw new ApiError('You must upload exactly one file.');
  if (unicodeEmojiCode(name) !== undefined && user.role > Role.ADMINISTRATOR)
    throw new ApiError('Only administrators can override built-in emoji.');
  if (all[0].size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024)
    throw fileTooLarge(MAX_EMOJI_FILE_SIZE_MIB);
  await doAddRealmEmoji(services, realm, user, name, all[0]);
  return {};
};

/** Deactivates a custom emoji: the requester's own, or any for an administrator. */
export const deactivateCustomEmoji: Handler<'deactivate-custom-emoji'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  await doRemoveRealmEmoji(services, realm, user, params.emoji_name);
  return {};
};

/** The operations of this area, by operationId. */
export const realmEmojiHandlers = {
  'get-custom-emoji': getCustomEmoji,
  'upload-custom-emoji': uploadCustomEmoji,
  'deactivate-custom-emoji': deactivateCustomEmoji,
} satisfies Partial<HandlerMap>;

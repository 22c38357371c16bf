// Custom emoji of an organization: the API object, the map of all of them,
// the `realm_emoji` initial state, the checks on a new emoji's name and image,
// and who may deactivate one.
import type { RealmEmoji, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, notFound } from '../../errors';
import { Role } from '../constants';
import type { StateProvider } from '../state';

/** Largest custom emoji image, in MiB (Zulip's MAX_EMOJI_FILE_SIZE_MIB). */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

/** The file-store key of a custom emoji image of `realmId`. */
export function emojiImageKey(realmId: number, fileName: string): string {
  return `${realmId}/emoji/images/${fileName}`;
}

/** The URL path of a custom emoji's image, served without credentials. */
export function emojiImageUrl(realmId: number, fileName: string): string {
  return `/user_avatars/${realmId}/emoji/images/${fileName}`;
}

/** The API's custom emoji object (still_url is null: animated images are not told apart). */
export function presentRealmEmoji(
  row: Pick<RealmEmoji, 'id' | 'realmId' | 'name' | 'fileName' | 'deactivated' | 'authorId'>,
) {
  return {
    id: String(row.id),
    name: row.name,
    source_url: emojiImageUrl(row.realmId, row.fileName),
    still_url: null,
    deactivated: row.deactivated,
    author_id: row.authorId,
  };
}

/** Every custom emoji of the organization, deactivated ones included, keyed by ID. */
export async function realmEmojiMap(
  db: Db,
  realmId: number,
): Promise<Record<string, ReturnType<typeof presentRealmEmoji>>> {
  const rows = await db.realmEmoji.findMany({ where: { realmId }, orderBy: { id: 'asc' } });
  return Object.fromEntries(rows.map((row) => [String(row.id), presentRealmEmoji(row)]));
}

/** `realm_emoji`: the organization's custom emoji. */
export const realmEmojiState: StateProvider = async ({ db, realm }) => ({
  realm_emoji: await realmEmojiMap(db, realm.id),
});

/**
 * The name a new emoji will have: surrounding spaces dropped and inner spaces
 * turned into underscores; then it must hold only lowercase letters, digits,
 * dashes and underscores, and end with a letter or digit (Zulip's messages).
 */
export function checkEmojiName(raw: string): string {
  const name = raw.trim().replace(/ /g, '_');
  if (name === '') throw new ApiError('Emoji name is missing');
  if (/^[0-9a-z_-]*[0-9a-z]$/.test(name)) return name;
  if (/^[0-9a-z_-]+$/.test(name))
    throw new ApiError('Emoji names must end with either a letter or digit.');
  throw new ApiError(
    'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.',
  );
}

/**
 * The active custom emoji `name` of the organization, for deactivating it by
 * `user`: an administrator may deactivate any, anyone else only their own
 * (Zulip's messages; a missing emoji is a 404).
 */
export async function removableRealmEmoji(
  db: Db,
  user: Pick<User, 'id' | 'realmId' | 'role'>,
  name: string,
): Promise<RealmEmoji> {
  const emoji = await db.realmEmoji.findFirst({
    where: { realmId: user.realmId, name, deactivated: false },
    orderBy: { id: 'desc' },
  });
  if (!emoji) throw notFound(`Emoji '${name}' does not exist`);
  if (user.role > Role.ADMINISTRATOR && emoji.authorId !== user.id)
    throw new ApiError('Must be an organization administrator or emoji author');
  return emoji;
}

/** Image formats accepted for custom emoji, with their file extension and leading bytes. */
const imageFormats: Record<string, { ext: string; matches: (head: Buffer) => boolean }> = {
  'image/png': {
    ext: '.png',
    matches: (h) =>
      h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  'image/gif': {
    ext: '.gif',
    matches: (h) => ['GIF87a', 'GIF89a'].includes(h.subarray(0, 6).toString('latin1')),
  },
  'image/jpeg': { ext: '.jpg', matches: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff },
  'image/webp': {
    ext: '.webp',
    matches: (h) =>
      h.subarray(0, 4).toString('latin1') === 'RIFF' &&
      h.subarray(8, 12).toString('latin1') === 'WEBP',
  },
  'image/avif': {
    ext: '.avif',
    matches: (h) =>
      h.subarray(4, 8).toString('latin1') === 'ftyp' &&
      /^avi[fs]$/.test(h.subarray(8, 12).toString('latin1')),
  },
};

/**
 * The file extension of an emoji image whose declared type is `contentType`
 * and whose first bytes are `head`; refuses other formats, and files whose
 * bytes are not of the declared format.
 */
export function emojiImageExtension(contentType: string, head: Buffer): string {
  const format = imageFormats[contentType.toLowerCase()];
  if (!format) throw new ApiError('Invalid image format');
  if (!format.matches(head))
    throw new ApiError('Could not decode image; did you upload an image file?');
  return format.ext;
}

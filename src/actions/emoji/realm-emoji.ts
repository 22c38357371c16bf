// Adding and deactivating custom emoji: the row, its image in the upload
// store, and the realm_emoji update event (the organization's whole emoji
// map, deactivated emoji included) to everyone.
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import {
  emojiImageExtension,
  emojiImageKey,
  realmEmojiMap,
  removableRealmEmoji,
} from '../../lib/emoji/realm-emoji';
import { contentTypeOf, type UploadedFile } from '../../lib/uploads/uploads';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

const alreadyExists = () => new ApiError('A custom emoji with this name already exists.');

async function firstBytes(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(16);
    const { bytesRead } = await handle.read(buffer, 0, 16, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Stores `image` as the organization's custom emoji `name` (already checked), uploaded by `author`. */
export async function doAddRealmEmoji(
  services: Services,
  realm: Realm,
  author: User,
  name: string,
  image: UploadedFile,
): Promise<void> {
  const contentType = contentTypeOf(image.type, image.name);
  const ext = emojiImageExtension(contentType, await firstBytes(image.path));
  // An unguessable name, so that images cannot be listed by counting.
  const fileName = `${randomBytes(8).toString('hex')}${ext}`;
  const key = emojiImageKey(realm.id, fileName);
  try {
    await services.files.put(key, image.path, contentType);
  } finally {
    // The body parser's temporary copy is no longer needed.
    await rm(image.path, { force: true });
  }
  try {
    await services.db.write(async (tx, onCommit) => {
      if (await tx.realmEmoji.findFirst({ where: { realmId: realm.id, name, deactivated: false } }))
        throw alreadyExists();
      await tx.realmEmoji.create({
        data: { realmId: realm.id, name, authorId: author.id, fileName },
      });
      const emoji = await realmEmojiMap(tx, realm.id);
      const everyone = new EveryoneIn(realm.id);
      onCommit(() =>
        services.bus.publish({ type: 'realm_emoji', op: 'update', realm_emoji: emoji }, everyone),
      );
    });
  } catch (error) {
    await services.files.delete(key);
    throw error;
  }
}

/**
 * Deactivates the organization's active custom emoji `name` for `user` (its
 * author or an administrator). The row and image stay, for the reactions and
 * statuses that use it.
 */
export async function doRemoveRealmEmoji(
  services: Services,
  realm: Realm,
  user: User,
  name: string,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const emoji = await removableRealmEmoji(tx, user, name);
    await tx.realmEmoji.update({ where: { id: emoji.id }, data: { deactivated: true } });
    const map = await realmEmojiMap(tx, realm.id);
    const everyone = new EveryoneIn(realm.id);
    onCommit(() =>
      services.bus.publish({ type: 'realm_emoji', op: 'update', realm_emoji: map }, everyone),
    );
  });
}

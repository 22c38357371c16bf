// Adding a custom emoji: the row, its image in the upload store, and the
// realm_emoji update event (the organization's whole emoji map) to everyone.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import { ApiError } from '../errors';
import { emojiImageExtension, realmEmojiMap } from '../lib/emoji/realm-emoji';
import { activeUserIds } from '../lib/users/user-events';
import { contentTypeOf, inside, type UploadedFile } from '../lib/uploads/uploads';
import type { Services } from '../services';

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
  const ext = emojiImageExtension(
    contentTypeOf(image.type, image.name),
    await firstBytes(image.path),
  );
  // An unguessable name, so that images cannot be listed by counting.
  const fileName = `${randomBytes(8).toString('hex')}${ext}`;
  const target = inside(services.config.uploadsDir, `${realm.id}/emoji/images/${fileName}`);
  if (!target) throw new Error('emoji image path falls outside the upload store');
  await mkdir(dirname(target), { recursive: true });
  await copyFile(image.path, target);
  // The body parser's temporary copy is no longer needed.
  await rm(image.path, { force: true });
  try {
    await services.db.write(async (tx, onCommit) => {
      if (await tx.realmEmoji.findFirst({ where: { realmId: realm.id, name, deactivated: false } }))
        throw alreadyExists();
      await tx.realmEmoji.create({
        data: { realmId: realm.id, name, authorId: author.id, fileName },
      });
      const emoji = await realmEmojiMap(tx, realm.id);
      const everyone = await activeUserIds(tx, realm.id);
      onCommit(() =>
        services.bus.publish({ type: 'realm_emoji', op: 'update', realm_emoji: emoji }, everyone),
      );
    });
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
}

// Changing one's avatar: an uploaded image (its two sizes put in the file
// store) or back to Gravatar. Either way the avatar version goes up, everyone
// in the organization hears of the new avatar in a realm_user update, a bot's
// owner and the administrators in a realm_bot update too, and the previous
// upload's images are removed once the change is committed.
import { rm } from 'node:fs/promises';
import type { User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { avatarImageKey, makeAvatarImages, newAvatarHash } from '../../lib/users/avatars';
import { botAudience } from '../../lib/users/bots';
import { avatarUrl, avatarUrlMedium } from '../../lib/users/users';
import { contentTypeOf, type UploadedFile } from '../../lib/uploads/uploads';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

/** The store keys of both images of an upload. */
const imageKeys = (realmId: number, hash: string) => [
  avatarImageKey(realmId, hash, false),
  avatarImageKey(realmId, hash, true),
];

/**
 * Makes `image` the avatar of `user` (refusing files that are not images);
 * returns the user as they now are.
 */
export async function doSetAvatar(
  services: Services,
  user: User,
  image: UploadedFile,
): Promise<User> {
  const hash = newAvatarHash();
  const small = `${image.path}.small.png`;
  const medium = `${image.path}.medium.png`;
  const [smallKey, mediumKey] = imageKeys(user.realmId, hash);
  try {
    await makeAvatarImages(image.path, contentTypeOf(image.type, image.name), { small, medium });
    await services.files.put(smallKey, small, 'image/png');
    await services.files.put(mediumKey, medium, 'image/png');
  } finally {
    // Neither the body parser's copy nor the resized images are needed any more.
    await Promise.all([image.path, small, medium].map((path) => rm(path, { force: true })));
  }
  try {
    return await changeAvatar(services, user, 'U', hash);
  } catch (error) {
    await Promise.all([smallKey, mediumKey].map((key) => services.files.delete(key)));
    throw error;
  }
}

/** Gives `user` their Gravatar picture back; returns the user as they now are. */
export function doDeleteAvatar(services: Services, user: User): Promise<User> {
  return changeAvatar(services, user, 'G', null);
}

/** Records the new avatar source, announces it, and removes the images it replaces. */
async function changeAvatar(
  services: Services,
  user: User,
  source: 'U' | 'G',
  hash: string | null,
): Promise<User> {
  const { updated, previous } = await services.db.write(async (tx, onCommit) => {
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id } });
    const updated = await tx.user.update({
      where: { id: user.id },
      data: { avatarSource: source, avatarHash: hash, avatarVersion: { increment: 1 } },
    });
    await announceAvatar(tx, onCommit, services, updated);
    return { updated, previous: current.avatarHash };
  });
  if (previous)
    await Promise.all(imageKeys(user.realmId, previous).map((key) => services.files.delete(key)));
  return updated;
}

/** The realm_user update (and for a bot, the realm_bot update) of a new avatar, on commit. */
async function announceAvatar(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  user: User,
): Promise<void> {
  const everyone = new EveryoneIn(user.realmId);
  const audience = user.isBot ? await botAudience(tx, user) : [];
  // As in Zulip, the address is sent whole even to clients that compute
  // gravatars themselves: they need no email to show it.
  const url = avatarUrl(user, false, true)!;
  onCommit(() => {
    services.auth.forgetUser(user.id);
    services.bus.publish(
      {
        type: 'realm_user',
        op: 'update',
        person: {
          user_id: user.id,
          avatar_source: user.avatarSource,
          avatar_url: url,
          avatar_url_medium: avatarUrlMedium(user),
          avatar_version: user.avatarVersion,
        },
      },
      everyone,
    );
    if (user.isBot)
      services.bus.publish(
        { type: 'realm_bot', op: 'update', bot: { user_id: user.id, avatar_url: url } },
        audience,
      );
  });
}

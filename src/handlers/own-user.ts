// GET /users/me, DELETE /users/me, POST /users/me/api_key/regenerate, and
// POST and DELETE /users/me/avatar.
import { doDeleteAvatar, doSetAvatar } from '../actions/users/avatars';
import { doDeactivateUser, doRegenerateApiKey } from '../actions/users/users';
import { ApiError } from '../errors';
import { fileTooLarge } from '../lib/uploads/uploads';
import { MAX_AVATAR_FILE_SIZE_MIB } from '../lib/users/avatars';
import { ownUserData } from '../lib/users/profile-fields';
import { avatarUrl, presentOwnUser, realmHost } from '../lib/users/users';
import type { Handler, HandlerMap } from './types';

/** The requesting user, as they see themself, with their custom profile field values. */
export const getOwnUser: Handler<'get-own-user'> = async ({ services, user, realm }) => {
  const { maxMessageId, profileData } = await services.db.read((db) => ownUserData(db, user.id));
  return presentOwnUser(
    user,
    realmHost(realm, services.config.externalUrl),
    profileData,
    maxMessageId,
  );
};

/** Deactivates the requester's own account. */
export const deactivateOwnUser: Handler<'deactivate-own-user'> = async ({ services, user }) => {
  await doDeactivateUser(services, user, user, { own: true });
  return {};
};

/** Replaces the requester's API key; the answer carries the new one. */
export const regenerateApiKey: Handler<'regenerate-api-key'> = async ({ services, user }) => ({
  api_key: await doRegenerateApiKey(services, user),
});

/** Makes the request's one image the requester's avatar; the answer has its address. */
export const setAvatar: Handler<'set-avatar'> = async ({ services, user, files }) => {
  const all = Object.values(files);
  if (all.length !== 1) throw new ApiError('You must upload exactly one avatar.');
  if (all[0].size > MAX_AVATAR_FILE_SIZE_MIB * 1024 * 1024)
    throw fileTooLarge(MAX_AVATAR_FILE_SIZE_MIB);
  const updated = await doSetAvatar(services, user, all[0]);
  return { avatar_url: avatarUrl(updated, false, true)! };
};

/** Gives the requester their Gravatar picture back (nothing changes if they have it already). */
export const deleteAvatar: Handler<'delete-avatar'> = async ({ services, user }) => {
  const updated = user.avatarSource === 'U' ? await doDeleteAvatar(services, user) : user;
  return { avatar_url: avatarUrl(updated, false, true)! };
};

/** The operations of this area, by operationId. */
export const ownUserHandlers = {
  'get-own-user': getOwnUser,
  'deactivate-own-user': deactivateOwnUser,
  'regenerate-api-key': regenerateApiKey,
  'set-avatar': setAvatar,
  'delete-avatar': deleteAvatar,
} satisfies Partial<HandlerMap>;

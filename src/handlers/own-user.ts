// GET /users/me, DELETE /users/me and POST /users/me/api_key/regenerate.
import { doDeactivateUser, doRegenerateApiKey } from '../actions/users/users';
import { maxMessageId } from '../lib/messages/messages';
import { profileDataOf } from '../lib/users/profile-fields';
import { presentUser, realmHost } from '../lib/users/users';
import type { Handler, HandlerMap } from './types';

/** The requesting user, as they see themself, with their custom profile field values. */
export const getOwnUser: Handler<'get-own-user'> = async ({ services, user, realm }) => {
  const { maxMessage, profileData } = await services.db.read(async (db) => ({
    maxMessage: await maxMessageId(db, user.id),
    profileData: await profileDataOf(db, [user.id]),
  }));
  const { bot_type, ...me } = presentUser(
    user,
    user,
    realmHost(realm, services.config.externalUrl),
    { clientGravatar: false },
  );
  // As in Zulip, only a bot's answer names its type and owner.
  const bot = user.isBot ? { bot_type, bot_owner_id: user.botOwnerId } : {};
  return {
    ...me,
    ...bot,
    delivery_email: user.email,
    profile_data: profileData.get(user.id) ?? {},
    max_message_id: maxMessage,
  };
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

/** The operations of this area, by operationId. */
export const ownUserHandlers = {
  'get-own-user': getOwnUser,
  'deactivate-own-user': deactivateOwnUser,
  'regenerate-api-key': regenerateApiKey,
} satisfies Partial<HandlerMap>;

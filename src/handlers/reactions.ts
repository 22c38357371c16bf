// Emoji reactions: POST and DELETE /messages/{message_id}/reactions.
import { doAddReaction, doRemoveReaction } from '../actions/messages/reactions';
import type { Handler, HandlerMap } from './types';

/** Adds the user's emoji reaction to a message. */
export const addReaction: Handler<'add-reaction'> = async ({ params, services, user, realm }) => {
  await doAddReaction(
    services,
    realm,
    user,
    params.message_id,
    params.emoji_name,
    params.emoji_code,
    params.reaction_type,
  );
  return {};
};

/** Removes one of the user's emoji reactions from a message. */
export const removeReaction: Handler<'remove-reaction'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  await doRemoveReaction(
    services,
    realm,
    user,
    params.message_id,
    params.emoji_name,
    params.emoji_code,
    params.reaction_type ?? 'unicode_emoji',
  );
  return {};
};

/** The operations of this area, by operationId. */
export const reactionHandlers = {
  'add-reaction': addReaction,
  'remove-reaction': removeReaction,
} satisfies Partial<HandlerMap>;

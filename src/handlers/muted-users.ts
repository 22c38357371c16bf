// Muted users: POST and DELETE /users/me/muted_users/{muted_user_id}.
import { doMuteUser, doUnmuteUser } from '../actions/users/muted-users';
import type { Handler, HandlerMap } from './types';

/** Mutes a user for the requester. */
export const muteUser: Handler<'mute-user'> = async ({ params, services, user }) => {
  await doMuteUser(services, user, params.muted_user_id);
  return {};
};

/** Unmutes a user the requester muted. */
export const unmuteUser: Handler<'unmute-user'> = async ({ params, services, user }) => {
  await doUnmuteUser(services, user, params.muted_user_id);
  return {};
};

/** The operations of this area, by operationId. */
export const mutedUserHandlers = {
  'mute-user': muteUser,
  'unmute-user': unmuteUser,
} satisfies Partial<HandlerMap>;

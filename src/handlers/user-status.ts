// User status: GET /users/{user_id}/status, POST /users/me/status and, for
// administrators, POST /users/{user_id}/status.
import { doUpdateUserStatus } from '../actions/users/user-status';
import { ApiError } from '../errors';
import { presentUserStatus } from '../lib/users/user-status';
import { accessUserById } from '../lib/users/users';
import type { Handler, HandlerMap } from './types';

/** The status a user has set; an empty object when none. */
export const getUserStatus: Handler<'get-user-status'> = async ({ params, services, user }) => {
  const target = await services.db.read((db) =>
    accessUserById(db, user, params.user_id, { forAdmin: false }),
  );
  const status = await services.db.read((db) =>
    db.userStatus.findUnique({ where: { userId: target.id } }),
  );
  return { status: presentUserStatus(status, target.presenceEnabled) };
};

/** Sets the requester's own status. */
export const updateStatus: Handler<'update-status'> = async ({ params, services, user }) => {
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  await doUpdateUserStatus(services, user, {
    away: params.away,
    statusText: params.status_text,
    emojiName: params.emoji_name,
    emojiCode: params.emoji_code,
    reactionType: params.reaction_type,
  });
  return {};
};

/** An administrator sets another user's status. */
export const updateStatusForUser: Handler<'update-status-for-user'> = async ({
  params,
  services,
  user,
}) => {
  const target = await services.db.read((db) =>
    accessUserById(db, user, params.user_id, { forAdmin: true }),
  );
  await doUpdateUserStatus(services, target, {
    statusText: params.status_text,
    emojiName: params.emoji_name,
    emojiCode: params.emoji_code,
    reactionType: params.reaction_type,
  });
  return {};
};

/** The operations of this area, by operationId. */
export const userStatusHandlers = {
  'get-user-status': getUserStatus,
  'update-status': updateStatus,
  'update-status-for-user': updateStatusForUser,
} satisfies Partial<HandlerMap>;

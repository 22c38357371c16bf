// GET /users/me.
import { hostOf, presentUser } from '../lib/users';
import type { Handler } from './types';

/** The requesting user, as they see themself. */
export const getOwnUser: Handler<'get-own-user'> = async ({ services, user }) => {
  const maxMessage = await services.db.read((db) =>
    db.userMessage.findFirst({ where: { userId: user.id }, orderBy: { messageId: 'desc' }, select: { messageId: true } }),
  );
  const me = presentUser(user, user, hostOf(services.config.externalUrl), { clientGravatar: false });
  return { ...me, bot_owner_id: user.botOwnerId, delivery_email: user.email, profile_data: {}, max_message_id: maxMessage?.messageId ?? -1 };
};

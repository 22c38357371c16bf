// Server-level permissions: powers no role in an organization carries, which
// only the server's administrator grants (from the command line), as Zulip
// does. `can_create_users` lets an organization administrator create accounts
// through POST /users; `can_forge_sender` lets a user (an integration that
// mirrors another chat system) post to any channel of the organization and
// give a message its original time.
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import type { Services } from '../../services';

/** The server-level permissions, by their API names, with the column that stores each. */
export const serverPermissions = {
  can_create_users: 'canCreateUsers',
  can_forge_sender: 'canForgeSender',
} as const;

/** The API name of a server-level permission. */
export type ServerPermission = keyof typeof serverPermissions;

// What Zulip's administrators are told when the change would change nothing.
const unchanged: Record<ServerPermission, { granted: string; revoked: string }> = {
  can_create_users: {
    granted: 'User can already create users for this realm.',
    revoked: "User can't create users for this realm.",
  },
  can_forge_sender: {
    granted: 'User can already forge messages for this realm.',
    revoked: "User can't forge messages for this realm.",
  },
};

/**
 * Grants (`value` true) or revokes a server-level permission of `user`;
 * refuses a change that changes nothing. No event: clients read the
 * permission only at start-up. A running server sees it once its cached
 * credentials expire (seconds).
 */
export async function doChangeServerPermission(
  services: Services,
  user: User,
  permission: ServerPermission,
  value: boolean,
): Promise<User> {
  return services.db.write(async (tx, onCommit) => {
    const column = serverPermissions[permission];
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id } });
    if (current[column] === value)
      throw new ApiError(value ? unchanged[permission].granted : unchanged[permission].revoked);
    const updated = await tx.user.update({ where: { id: user.id }, data: { [column]: value } });
    onCommit(() => services.auth.forgetUser(user.id));
    return updated;
  });
}

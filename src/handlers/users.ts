// Users: list, read, create, change, deactivate and reactivate accounts
// (GET/POST /users, GET/PATCH/DELETE /users/{user_id}, GET/PATCH /users/{email},
// POST /users/{user_id}/reactivate).
import {
  doCreateUserByAdmin,
  doDeactivateUser,
  doReactivateUser,
  doUpdateUser,
  type UserChange,
} from '../actions/users/users';
import type { User } from '../../generated/prisma/sqlite/client';
import { profileDataOf } from '../lib/users/profile-fields';
import { accessibleUserIds } from '../lib/users/user-access';
import { accessUserByEmail, accessUserById, presentUser, realmHost } from '../lib/users/users';
import type { AuthedRequest, Handler, HandlerMap, OperationId } from './types';

type UserPresented = ReturnType<typeof presentUser>;

/** Presents `targets` as the requester sees them, with custom profile fields when asked for. */
async function present(
  req: AuthedRequest<OperationId>,
  targets: User[],
  options: { clientGravatar?: boolean; includeCustomProfileFields?: boolean },
): Promise<UserPresented[]> {
  const host = realmHost(req.realm, req.services.config.externalUrl);
  const profileData = options.includeCustomProfileFields
    ? await req.services.db.read((db) =>
        profileDataOf(
          db,
          targets.map((t) => t.id),
        ),
      )
    : undefined;
  return targets.map((t) =>
    presentUser(t, req.user, host, { clientGravatar: options.clientGravatar ?? true, profileData }),
  );
}

/**
 * Every user and bot of the organization, deactivated ones included; a guest
 * the organization restricts sees only the users they may access.
 */
export const getUsers: Handler<'get-users'> = async (req) => {
  const users = await req.services.db.read(async (db) => {
    const all = await db.user.findMany({
      where: { realmId: req.realm.id },
      orderBy: { id: 'asc' },
    });
    const accessible = await accessibleUserIds(db, req.realm, req.user);
    return accessible ? all.filter((u) => u.isBot || accessible.has(u.id)) : all;
  });
  const members = await present(req, users, {
    clientGravatar: req.params.client_gravatar,
    includeCustomProfileFields: req.params.include_custom_profile_fields,
  });
  return { members };
};

/** One user, by ID. */
export const getUser: Handler<'get-user'> = async (req) => {
  const target = await req.services.db.read((db) =>
    accessUserById(db, req.user, req.params.user_id, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: false,
    }),
  );
  const [user] = await present(req, [target], {
    clientGravatar: req.params.client_gravatar,
    includeCustomProfileFields: req.params.include_custom_profile_fields,
  });
  return { user };
};

/** One user, by real or placeholder email address. */
export const getUserByEmail: Handler<'get-user-by-email'> = async (req) => {
  const host = realmHost(req.realm, req.services.config.externalUrl);
  const target = await req.services.db.read((db) =>
    accessUserByEmail(db, req.user, req.params.email, host, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: false,
    }),
  );
  const [user] = await present(req, [target], {
    clientGravatar: req.params.client_gravatar,
    includeCustomProfileFields: req.params.include_custom_profile_fields,
  });
  return { user };
};

/** An administrator holding can_create_users creates an account. */
export const createUser: Handler<'create-user'> = async ({ params, services, user, realm }) => {
  const created = await doCreateUserByAdmin(services, user, realm, {
    email: params.email,
    password: params.password,
    fullName: params.full_name,
  });
  return { user_id: created.id };
};

type UpdateParams = AuthedRequest<'update-user'>['params'];

function userChange(params: Omit<UpdateParams, 'user_id'>): UserChange {
  return {
    fullName: params.full_name,
    role: params.role,
    profileData: params.profile_data?.map((entry) => ({
      id: entry.id,
      value: entry.value as string | number[] | null,
    })),
    newEmail: params.new_email,
  };
}

/** An administrator changes another user, named by ID. */
export const updateUser: Handler<'update-user'> = async ({ params, services, user }) => {
  const target = await services.db.read((db) =>
    accessUserById(db, user, params.user_id, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: true,
    }),
  );
  await doUpdateUser(services, user, target, userChange(params));
  return {};
};

/** An administrator changes another user, named by email address. */
export const updateUserByEmail: Handler<'update-user-by-email'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const host = realmHost(realm, services.config.externalUrl);
  const target = await services.db.read((db) =>
    accessUserByEmail(db, user, params.email, host, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: true,
    }),
  );
  await doUpdateUser(services, user, target, userChange(params));
  return {};
};

/** An administrator deactivates a user (and the bots they own). */
export const deactivateUser: Handler<'deactivate-user'> = async ({ params, services, user }) => {
  const target = await services.db.read((db) =>
    accessUserById(db, user, params.user_id, { forAdmin: true }),
  );
  await doDeactivateUser(services, user, target);
  return {};
};

/** An administrator reactivates a deactivated user. */
export const reactivateUser: Handler<'reactivate-user'> = async ({ params, services, user }) => {
  const target = await services.db.read((db) =>
    accessUserById(db, user, params.user_id, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: true,
    }),
  );
  await doReactivateUser(services, target);
  return {};
};

/** The operations of this area, by operationId. */
export const userHandlers = {
  'get-users': getUsers,
  'get-user': getUser,
  'get-user-by-email': getUserByEmail,
  'create-user': createUser,
  'update-user': updateUser,
  'update-user-by-email': updateUserByEmail,
  'deactivate-user': deactivateUser,
  'reactivate-user': reactivateUser,
} satisfies Partial<HandlerMap>;

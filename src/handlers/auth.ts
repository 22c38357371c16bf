// POST /fetch_api_key: an email address and password for an API key; POST
// /jwt/fetch_api_key: a signed JSON Web Token naming the user, for one.
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import { ApiError, unauthorized } from '../errors';
import { doClearLoginFailures, doRecordLoginFailure } from '../actions/users/login-failures';
import { checkLoginLock } from '../lib/users/login-lock';
import { checkPassword } from '../lib/users/secrets';
import { realmForHost } from '../lib/realm/realms';
import { BadJwt, verifiedClaims } from '../lib/users/jwt';
import { presentUser, realmHost } from '../lib/users/users';
import type { Services } from '../services';
import type { PublicHandler, PublicHandlerMap } from './types';

/**
 * The account a username and password name at the organization of `host`,
 * with every refusal of a password login: the lock after repeated failures,
 * a wrong password (counted towards the lock), a deactivated account or
 * organization, a bot. Shared by POST /fetch_api_key and the web client's
 * sign-in.
 */
export async function passwordLogin(
  services: Services,
  host: string,
  username: string,
  password: string,
): Promise<User> {
  const { db, config } = services;
  await db.read((tx) => checkLoginLock(tx, username, new Date()));
  const realm = await db.read((tx) => realmForHost(tx, host, config.externalUrl));
  const user = await db.read((tx) =>
    tx.user.findUnique({
      where: {
        realmId_emailLower: { realmId: realm.id, emailLower: username.toLowerCase() },
      },
    }),
  );
  // A missing user is checked against a dummy hash: the answer takes as long either way.
  if (!(await checkPassword(user?.passwordHash, password)) || !user) {
    await doRecordLoginFailure(db, username, config.rateLimitAuthAttempts, new Date());
    throw unauthorized('Your username or password is incorrect', 'AUTHENTICATION_FAILED');
  }
  checkCanLogIn(realm, user);
  await doClearLoginFailures(db, username);
  return user;
}

/** Exchanges a username and password for the account's API key. */
export const fetchApiKey: PublicHandler<'fetch-api-key'> = async ({ params, services, host }) => {
  const user = await passwordLogin(services, host, params.username, params.password);
  return { api_key: user.apiKey, email: user.email, user_id: user.id };
};

/** Refuses an account of a deactivated organization, a deactivated account, and a bot. */
function checkCanLogIn(realm: Realm, user: User): void {
  if (realm.deactivated)
    throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
  if (!user.isActive) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
  if (user.isBot) throw new ApiError('This endpoint is not available to bots.', 'BAD_REQUEST', 401);
}

/**
 * Exchanges a JSON Web Token, signed with the key JWT_AUTH_KEYS gives the
 * organization at this address and carrying the user's email in an `email`
 * claim, for the account's API key.
 */
export const jwtFetchApiKey: PublicHandler<'jwt-fetch-api-key'> = async ({
  params,
  services,
  host,
}) => {
  const { db, config } = services;
  const realm = await db.read((tx) => realmForHost(tx, host, config.externalUrl));
  const key = Object.hasOwn(config.jwtAuthKeys, realm.stringId)
    ? config.jwtAuthKeys[realm.stringId]
    : undefined;
  if (!key) throw new ApiError('JWT authentication is not enabled for this organization');
  if (params.token === '') throw new ApiError('No JSON web token passed in request');
  let claims: Record<string, unknown>;
  try {
    claims = verifiedClaims(params.token, key, Date.now() / 1000);
  } catch (error) {
    if (error instanceof BadJwt) throw new ApiError('Bad JSON web token');
    throw error;
  }
  if (typeof claims.email !== 'string')
    throw new ApiError('No email specified in JSON web token claims');
  const email = claims.email;
  const user = await db.read((tx) =>
    tx.user.findUnique({
      where: { realmId_emailLower: { realmId: realm.id, emailLower: email.toLowerCase() } },
    }),
  );
  if (!user) throw unauthorized('Your username or password is incorrect', 'AUTHENTICATION_FAILED');
  checkCanLogIn(realm, user);
  const profile = params.include_profile
    ? {
        user: presentUser(user, user, realmHost(realm, config.externalUrl), {
          clientGravatar: false,
        }),
      }
    : {};
  return { api_key: user.apiKey, email: user.email, ...profile };
};

/** The operations of this area that need no credentials, by operationId. */
export const authHandlers = {
  'fetch-api-key': fetchApiKey,
  'jwt-fetch-api-key': jwtFetchApiKey,
} satisfies Partial<PublicHandlerMap>;

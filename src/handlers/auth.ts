// POST /fetch_api_key: an email address and password for an API key.
import { ApiError, unauthorized } from '../errors';
import { doClearLoginFailures, doRecordLoginFailure } from '../actions/login-failures';
import { checkLoginLock } from '../lib/users/login-lock';
import { checkPassword } from '../lib/users/secrets';
import { realmForHost } from '../lib/realm/realms';
import type { PublicHandler, PublicHandlerMap } from './types';

/** Exchanges a username and password for the account's API key. */
export const fetchApiKey: PublicHandler<'fetch-api-key'> = async ({ params, services, host }) => {
  const { db, config } = services;
  await db.read((tx) => checkLoginLock(tx, params.username, new Date()));
  const realm = await db.read((tx) => realmForHost(tx, host, config.externalUrl));
  const user = await db.read((tx) =>
    tx.user.findUnique({
      where: {
        realmId_emailLower: { realmId: realm.id, emailLower: params.username.toLowerCase() },
      },
    }),
  );
  // A missing user is checked against a dummy hash: the answer takes as long either way.
  if (!(await checkPassword(user?.passwordHash, params.password)) || !user) {
    await doRecordLoginFailure(db, params.username, config.rateLimitAuthAttempts, new Date());
    throw unauthorized('Your username or password is incorrect', 'AUTHENTICATION_FAILED');
  }
  if (realm.deactivated)
    throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
  if (!user.isActive) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
  if (user.isBot) throw new ApiError('This endpoint is not available to bots.', 'BAD_REQUEST', 401);
  await doClearLoginFailures(db, params.username);
  return { api_key: user.apiKey, email: user.email, user_id: user.id };
};

/** The operations of this area that need no credentials, by operationId. */
export const authHandlers = {
  'fetch-api-key': fetchApiKey,
} satisfies Partial<PublicHandlerMap>;

// POST /fetch_api_key: an email address and password for an API key.
import { ApiError, unauthorized } from '../errors';
import { checkPassword } from '../lib/users/secrets';
import { realmForHost } from '../lib/realm/realms';
import type { PublicHandler, PublicHandlerMap } from './types';

/** Exchanges a username and password for the account's API key. */
export const fetchApiKey: PublicHandler<'fetch-api-key'> = async ({ params, services, host }) => {
  const { db, config, limits } = services;
  const key = `login:${params.username.toLowerCase()}`;
  await limits.login.check(key);
  const realm = await db.read((tx) => realmForHost(tx, host, config.externalUrl));
  const user = await db.read((tx) =>
    tx.user.findUnique({
      where: {
        realmId_emailLower: { realmId: realm.id, emailLower: params.username.toLowerCase() },
      },
    }),
  );
  if (!user || !(await checkPassword(user.passwordHash, params.password))) {
    // Counted after the check above: a refusal here would hide the real answer.
    await limits.login.hit(key).catch(() => undefined);
    throw unauthorized('Your username or password is incorrect', 'AUTHENTICATION_FAILED');
  }
  if (realm.deactivated)
    throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
  if (!user.isActive) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
  if (user.isBot) throw new ApiError('This endpoint is not available to bots.', 'BAD_REQUEST', 401);
  return { api_key: user.apiKey, email: user.email, user_id: user.id };
};

/** The operations of this area that need no credentials, by operationId. */
export const authHandlers = {
  'fetch-api-key': fetchApiKey,
} satisfies Partial<PublicHandlerMap>;

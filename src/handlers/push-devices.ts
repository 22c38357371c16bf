// POST /users/me/apns_device_token (deprecated since feature level 406).
import { doAddPushDeviceToken, PushKind } from '../actions/push-devices';
import { ApiError } from '../errors';
import type { Handler, HandlerMap } from './types';

/** Whether `token` is base64 that decodes to at least one byte. */
function isBase64(token: string): boolean {
  return (
    /^[A-Za-z0-9+/]+={0,2}$/.test(token) &&
    token.length % 4 !== 1 &&
    Buffer.from(token, 'base64').length > 0
  );
}

/** Registers an Apple device token for the requester. */
export const addApnsToken: Handler<'add-apns-token'> = async ({ params, services, user }) => {
  if (user.isBot) throw new ApiError('This endpoint is not available to bots.');
  if (params.token === '' || params.token.length > 4096)
    throw new ApiError('Empty or invalid length token');
  if (!isBase64(params.token)) throw new ApiError('Invalid APNS token');
  if (!/^[.a-zA-Z0-9-]+$/.test(params.appid)) throw new ApiError('Invalid app ID');
  await doAddPushDeviceToken(services, user, PushKind.APNS, params.token, params.appid);
  return {};
};

/** The operations of this area, by operationId. */
export const pushDeviceHandlers = {
  'add-apns-token': addApnsToken,
} satisfies Partial<HandlerMap>;

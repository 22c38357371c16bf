// Push-notification devices: APNs tokens (POST and DELETE
// /users/me/apns_device_token) and FCM registration tokens (POST and DELETE
// /users/me/android_gcm_reg_id). The registering endpoints are deprecated
// since feature level 406. Human users only. Also POST
// /mobile_push/test_notification, and POST /mobile_push/register, the
// registration for end-to-end encrypted notifications, which only Zulip's
// push notification service can complete, and POST
// /mobile_push/e2ee/test_notification, which needs such a registration.
import type { User } from '../../generated/prisma/sqlite/client';
import {
  doAddPushDeviceToken,
  doRemovePushDeviceToken,
  PushKind,
} from '../actions/users/push-devices';
import { ApiError } from '../errors';
import { hasPushDevice } from '../lib/users/push-devices';
import type { Handler, HandlerMap } from './types';

/** Whether `token` is base64 that decodes to at least one byte. */
function isBase64(token: string): boolean {
  return (
    /^[A-Za-z0-9+/]+={0,2}$/.test(token) &&
    token.length % 4 !== 1 &&
    Buffer.from(token, 'base64').length > 0
  );
}

/** Refuses bots, which have no devices. */
function checkHuman(user: User): void {
  if (user.isBot) throw new ApiError('This endpoint is not available to bots.');
}

/** Checks a token as Zulip does: not empty, not too long, and for Apple decodable base64. */
function checkToken(token: string, kind: number): void {
  if (token === '' || token.length > 4096) throw new ApiError('Empty or invalid length token');
  if (kind === PushKind.APNS && !isBase64(token)) throw new ApiError('Invalid APNS token');
}

/** Registers an Apple device token for the requester. */
export const addApnsToken: Handler<'add-apns-token'> = async ({ params, services, user }) => {
  checkHuman(user);
  checkToken(params.token, PushKind.APNS);
  if (!/^[.a-zA-Z0-9-]+$/.test(params.appid)) throw new ApiError('Invalid app ID');
  await doAddPushDeviceToken(services, user, PushKind.APNS, params.token, params.appid);
  return {};
};

/** Removes one of the requester's Apple device tokens. */
export const removeApnsToken: Handler<'remove-apns-token'> = async ({ params, services, user }) => {
  checkHuman(user);
  checkToken(params.token, PushKind.APNS);
  await doRemovePushDeviceToken(services, user, PushKind.APNS, params.token);
  return {};
};

/** Registers an Android (FCM) registration token for the requester. */
export const addFcmToken: Handler<'add-fcm-token'> = async ({ params, services, user }) => {
  checkHuman(user);
  checkToken(params.token, PushKind.FCM);
  await doAddPushDeviceToken(services, user, PushKind.FCM, params.token, null);
  return {};
};

/** Removes one of the requester's Android (FCM) registration tokens. */
export const removeFcmToken: Handler<'remove-fcm-token'> = async ({ params, services, user }) => {
  checkHuman(user);
  checkToken(params.token, PushKind.FCM);
  await doRemovePushDeviceToken(services, user, PushKind.FCM, params.token);
  return {};
};

/**
 * Sends a test notification to one of the requester's devices, or all of
 * them: with no push service configured, as on a Zulip server without one,
 * nothing is delivered, but a token that is not the requester's is refused.
 */
export const testNotify: Handler<'test-notify'> = async ({ params, services, user }) => {
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  if (params.token !== undefined) {
    const known = await services.db.read((db) => hasPushDevice(db, user.id, params.token!));
    if (!known) throw new ApiError('Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN');
  }
  return {};
};

/**
 * Registers a device for end-to-end encrypted notifications (feature level
 * 406). The registration is sealed with the public key of Zulip's push
 * notification service, so only that service can read it; this server does
 * not use the service, and answers as a Zulip server without it does.
 */
export const registerPushDevice: Handler<'register-push-device'> = async ({ user }) => {
  checkHuman(user);
  throw new ApiError(
    'Server is not configured to use push notification service.',
    'PUSH_SERVICE_NOT_CONFIGURED',
  );
};

/**
 * Sends an end-to-end encrypted test notification (feature level 420). Only
 * devices registered through Zulip's push notification service could get
 * one; this server does not use it, so nobody has such a device, and the
 * answer is a Zulip server's for a user without one.
 */
export const e2eeTestNotify: Handler<'e2ee-test-notify'> = async ({ user }) => {
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  throw new ApiError('No active registered push device', 'NO_ACTIVE_PUSH_DEVICE');
};

/** The operations of this area, by operationId. */
export const pushDeviceHandlers = {
  'add-apns-token': addApnsToken,
  'remove-apns-token': removeApnsToken,
  'add-fcm-token': addFcmToken,
  'remove-fcm-token': removeFcmToken,
  'test-notify': testNotify,
  'register-push-device': registerPushDevice,
  'e2ee-test-notify': e2eeTestNotify,
} satisfies Partial<HandlerMap>;

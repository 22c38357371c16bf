// The handler of every implemented operation, by operationId. Each area of the
// API exports its handlers from its own file and is spread in here.
import { fetchApiKey } from './auth';
import { deleteQueue, getEvents, registerQueue } from './events';
import { getOwnUser } from './own-user';
import { getServerSettings } from './server';
import { updateSettings } from './settings';
import type { HandlerMap, PublicHandlerMap } from './types';

/** Operations that need no credentials. */
export const publicHandlers: PublicHandlerMap = {
  'fetch-api-key': fetchApiKey,
  'get-server-settings': getServerSettings,
};

/** Operations that need HTTP basic credentials. */
export const handlers: HandlerMap = {
  'get-own-user': getOwnUser,
  'register-queue': registerQueue,
  'get-events': getEvents,
  'delete-queue': deleteQueue,
  'update-settings': updateSettings,
};

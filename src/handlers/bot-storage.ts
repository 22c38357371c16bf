// GET, PUT and DELETE /bot_storage: the requester's key-value storage. Zulip
// opened it to every user until feature level 494, so at this server's level
// humans may use it as bots do.
import {
  doRemoveBotStorage,
  doUpdateBotStorage,
  readBotStorage,
} from '../actions/users/bot-storage';
import type { Handler, HandlerMap } from './types';

/** The requester's entries: those named by `keys`, or all of them. */
export const getBotStorage: Handler<'get-bot-storage'> = async ({ params, services, user }) => ({
  storage: await services.db.read((db) => readBotStorage(db, user.id, params.keys)),
});

/** Adds or replaces entries. */
export const updateBotStorage: Handler<'update-bot-storage'> = async ({
  params,
  services,
  user,
}) => {
  await doUpdateBotStorage(services, user.id, params.storage);
  return {};
};

/** Removes the entries named by `keys`, or all of them. */
export const removeBotStorage: Handler<'remove-bot-storage'> = async ({
  params,
  services,
  user,
}) => {
  await doRemoveBotStorage(services, user.id, params.keys);
  return {};
};

/** The operations of this area, by operationId. */
export const botStorageHandlers = {
  'get-bot-storage': getBotStorage,
  'update-bot-storage': updateBotStorage,
  'remove-bot-storage': removeBotStorage,
} satisfies Partial<HandlerMap>;

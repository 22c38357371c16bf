// GET /messages/{message_id}/read_receipts.
import { badRequest } from '../errors';
import { accessMessage } from '../lib/messages/message-access';
import { readReceipts } from '../lib/messages/read-receipts';
import type { Handler, HandlerMap } from './types';

/** Who has read a message the requester can read, when the organization allows read receipts. */
export const getReadReceipts: Handler<'get-read-receipts'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const userIds = await services.db.read(async (db) => {
    const { message } = await accessMessage(db, user, params.message_id);
    if (!realm.enableReadReceipts)
      throw badRequest('Read receipts are disabled in this organization.');
    return readReceipts(db, message);
  });
  return { user_ids: userIds };
};

/** The operations of this area, by operationId. */
export const readReceiptHandlers = {
  'get-read-receipts': getReadReceipts,
} satisfies Partial<HandlerMap>;

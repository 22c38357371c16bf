// Scheduled messages: GET and POST /scheduled_messages, PATCH and DELETE
// /scheduled_messages/{scheduled_message_id}.
import {
  doCreateScheduledMessage,
  doDeleteScheduledMessage,
  doUpdateScheduledMessage,
} from '../actions/messages/scheduled-messages';
import { listScheduledMessages, presentScheduledMessage } from '../lib/messages/scheduled-messages';
import type { Handler, HandlerMap } from './types';

const fromUnix = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(seconds * 1000);

/** Lists the user's undelivered scheduled messages. */
export const getScheduledMessages: Handler<'get-scheduled-messages'> = async ({
  services,
  user,
}) => {
  const messages = await services.db.read((db) => listScheduledMessages(db, user.id));
  return { scheduled_messages: messages.map(presentScheduledMessage) };
};

/** Schedules a message. */
export const createScheduledMessage: Handler<'create-scheduled-message'> = async ({
  params,
  services,
  user,
  realm,
  client,
}) => {
  const id = await doCreateScheduledMessage(services, realm, user, {
    type: params.type,
    to: params.to,
    topic: params.topic,
    content: params.content,
    at: fromUnix(params.scheduled_delivery_timestamp)!,
    readBySender: params.read_by_sender,
    client,
  });
  return { scheduled_message_id: id };
};

/** Edits a scheduled message. */
export const updateScheduledMessage: Handler<'update-scheduled-message'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  await doUpdateScheduledMessage(services, realm, user, params.scheduled_message_id, {
    type: params.type,
    to: params.to,
    topic: params.topic,
    content: params.content,
    at: fromUnix(params.scheduled_delivery_timestamp),
  });
  return {};
};

/** Cancels a scheduled message. */
export const deleteScheduledMessage: Handler<'delete-scheduled-message'> = async ({
  params,
  services,
  user,
}) => {
  await doDeleteScheduledMessage(services, user, params.scheduled_message_id);
  return {};
};

/** The operations of this area, by operationId. */
export const scheduledMessageHandlers = {
  'get-scheduled-messages': getScheduledMessages,
  'create-scheduled-message': createScheduledMessage,
  'update-scheduled-message': updateScheduledMessage,
  'delete-scheduled-message': deleteScheduledMessage,
} satisfies Partial<HandlerMap>;

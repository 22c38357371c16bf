// Message reminders: GET and POST /reminders, DELETE /reminders/{reminder_id}.
import { doCreateReminder, doDeleteReminder } from '../actions/messages/reminders';
import { listReminders, presentReminder } from '../lib/messages/reminders';
import type { Handler, HandlerMap } from './types';

/** Lists the user's undelivered reminders. */
export const getReminders: Handler<'get-reminders'> = async ({ services, user }) => ({
  reminders: (await services.db.read((db) => listReminders(db, user.id))).map(presentReminder),
});

/** Schedules a reminder of a message. */
export const createMessageReminder: Handler<'create-message-reminder'> = async ({
  params,
  services,
  realm,
  user,
  client,
}) => ({
  reminder_id: await doCreateReminder(services, realm, user, {
    messageId: params.message_id,
    at: new Date(params.scheduled_delivery_timestamp * 1000),
    note: params.note,
    client,
  }),
});

/** Cancels a reminder. */
export const deleteReminder: Handler<'delete-reminder'> = async ({ params, services, user }) => {
  await doDeleteReminder(services, user, params.reminder_id);
  return {};
};

/** The operations of this area, by operationId. */
export const reminderHandlers = {
  'get-reminders': getReminders,
  'create-message-reminder': createMessageReminder,
  'delete-reminder': deleteReminder,
} satisfies Partial<HandlerMap>;

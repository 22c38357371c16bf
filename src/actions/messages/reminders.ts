// Creating and deleting message reminders. A reminder is a scheduled message
// to the user (delivery type `remind`), delivered by the scheduled-message
// runs (scheduled-messages.ts) as a direct message from Notification Bot.
// Each change goes to the user's own clients as a `reminders` event.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { render } from '../../lib/markdown/render-context';
import { accessMessage } from '../../lib/messages/message-access';
import {
  missingReminder,
  normalizeNote,
  presentReminder,
  REMINDER,
  reminderContent,
  reminderSubject,
} from '../../lib/messages/reminders';
import { checkDeliveryTime } from '../../lib/messages/scheduled-messages';
import type { Services } from '../../services';

/** Schedules a reminder of `messageId` for `user` at `at`; returns its ID. */
export async function doCreateReminder(
  services: Services,
  realm: Realm,
  user: User,
  input: { messageId: number; at: Date; note?: string; client?: string },
): Promise<number> {
  checkDeliveryTime(input.at, new Date());
  return services.db.write(async (tx, onCommit) => {
    const { message } = await accessMessage(tx, user, input.messageId);
    const note = input.note ? normalizeNote(input.note) : undefined;
    const subject = await reminderSubject(tx, message);
    const content = reminderContent(realm, services.config.externalUrl, subject, note);
    const { html } = await render(tx, realm, content, services.config.externalUrl);
    const reminder = await tx.scheduledMessage.create({
      data: {
        realmId: realm.id,
        senderId: user.id,
        type: 'private',
        recipients: JSON.stringify([user.id]),
        content,
        renderedContent: html,
        scheduledTimestamp: input.at,
        readBySender: false,
        sendingClient: input.client ?? 'API',
        deliveryType: REMINDER,
        reminderTargetMessageId: message.id,
      },
    });
    onCommit(() =>
      services.bus.publish(
        { type: 'reminders', op: 'add', reminders: [presentReminder(reminder)] },
        [user.id],
      ),
    );
    return reminder.id;
  });
}

/** Deletes one of `user`'s reminders that is not delivered yet. */
export async function doDeleteReminder(services: Services, user: User, id: number): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const reminder = await tx.scheduledMessage.findFirst({
      where: { id, senderId: user.id, deliveryType: REMINDER, delivered: false },
    });
    if (!reminder) throw missingReminder();
    await tx.scheduledMessage.delete({ where: { id } });
    onCommit(() =>
      services.bus.publish({ type: 'reminders', op: 'remove', reminder_id: id }, [user.id]),
    );
  });
}

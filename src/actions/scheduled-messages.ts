// Scheduling, editing, cancelling and delivering messages sent later. Each
// change goes to the sender's own clients as a scheduled_messages event after
// it commits; delivery goes through the ordinary send path.
import type { Realm, ScheduledMessage, User } from '../../generated/prisma/sqlite/client';
import type { Db } from '../db/client';
import { ApiError, badRequest, notFound } from '../errors';
import {
  checkDeliveryTime,
  checkScheduledContent,
  presentScheduledMessage,
  scheduledRecipient,
  type ScheduledContent,
} from '../lib/messages/scheduled-messages';
import { defaultReadBySender } from '../lib/messages/message-send';
import type { Services } from '../services';
import { sendMessageIn } from './messages';

/** How late past its time a message may still be sent; later ones fail. */
export const LATE_DELIVERY_CUTOFF_MS = 10 * 60 * 1000;

const missing = () => notFound('Scheduled message does not exist');

/** Normalizes the type aliases to the stored names (`stream`, `private`). */
function storedType(type: string): string {
  if (type === 'channel') return 'stream';
  if (type === 'direct') return 'private';
  return type;
}

/** Schedules a message from `sender` for `at`; returns the scheduled message's ID. */
export async function doCreateScheduledMessage(
  services: Services,
  realm: Realm,
  sender: User,
  message: ScheduledContent & { at: Date; readBySender?: boolean; client?: string },
): Promise<number> {
  checkDeliveryTime(message.at, new Date());
  return services.db.write(async (tx, onCommit) => {
    const row = await checkScheduledContent(
      tx,
      realm,
      sender,
      { ...message, type: storedType(message.type) },
      services.config.externalUrl,
    );
    const created = await tx.scheduledMessage.create({
      data: {
        realmId: realm.id,
        senderId: sender.id,
        ...row,
        scheduledTimestamp: message.at,
        // Left out, as for sending: read when scheduled from an interactive
        // client, except a message to oneself, which stays unread as a reminder.
        readBySender:
          message.readBySender ??
          (defaultReadBySender(message.client ?? 'API') && row.recipients !== `[${sender.id}]`),
        sendingClient: message.client ?? 'API',
      },
    });
    onCommit(() =>
      services.bus.publish(
        {
          type: 'scheduled_messages',
          op: 'add',
          scheduled_messages: [presentScheduledMessage(created)],
        },
        [sender.id],
      ),
    );
    return created.id;
  });
}

/** What PATCH /scheduled_messages/{id} asks to change; absent fields stay. */
export interface ScheduledChange {
  type?: string;
  to?: unknown;
  topic?: string;
  content?: string;
  at?: Date;
}

/**
 * Edits one of `sender`'s undelivered scheduled messages. A change of
 * recipients, topic or content re-checks the whole message as a send would;
 * a failed message needs a new time, and the edit clears its failure.
 */
export async function doUpdateScheduledMessage(
  services: Services,
  realm: Realm,
  sender: User,
  id: number,
  change: ScheduledChange,
): Promise<void> {
  if (Object.values(change).every((v) => v === undefined)) throw badRequest('Nothing to change');
  if (change.type !== undefined && change.to === undefined)
    throw badRequest('Recipient required when updating type of scheduled message.');
  const newType = change.type === undefined ? undefined : storedType(change.type);
  if (newType === 'stream' && change.topic === undefined)
    throw badRequest('Topic required when updating scheduled message type to channel.');
  if (change.at) checkDeliveryTime(change.at, new Date());
  await services.db.write(async (tx, onCommit) => {
    const existing = await tx.scheduledMessage.findFirst({ where: { id, senderId: sender.id } });
    if (!existing) throw missing();
    if (existing.delivered) throw badRequest('Scheduled message was already sent');
    if (existing.failed && change.at === undefined)
      throw badRequest('Scheduled delivery time must be in the future.');
    const data: Partial<ScheduledMessage> = { failed: false, failureMessage: null };
    if (change.to !== undefined || change.topic !== undefined || change.content !== undefined) {
      const type = newType ?? existing.type;
      const message: ScheduledContent = {
        type,
        to: change.to ?? scheduledRecipient(existing),
        topic: type === 'stream' ? (change.topic ?? existing.topic) : undefined,
        content: change.content ?? existing.content,
      };
      Object.assign(
        data,
        await checkScheduledContent(tx, realm, sender, message, services.config.externalUrl),
      );
    }
    if (change.at) data.scheduledTimestamp = change.at;
    const updated = await tx.scheduledMessage.update({ where: { id: existing.id }, data });
    onCommit(() =>
      services.bus.publish(
        {
          type: 'scheduled_messages',
          op: 'update',
          scheduled_message: presentScheduledMessage(updated),
        },
        [sender.id],
      ),
    );
  });
}

/** Cancels one of `sender`'s scheduled messages. */
export async function doDeleteScheduledMessage(
  services: Services,
  sender: User,
  id: number,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const existing = await tx.scheduledMessage.findFirst({ where: { id, senderId: sender.id } });
    if (!existing) throw missing();
    await tx.scheduledMessage.delete({ where: { id: existing.id } });
    onCommit(() =>
      services.bus.publish(
        { type: 'scheduled_messages', op: 'remove', scheduled_message_id: existing.id },
        [sender.id],
      ),
    );
  });
}

/**
 * Sends every scheduled message due at `now`. Each is first claimed (marked
 * delivered) so that no other process sends it too; then it is sent as its
 * sender, and the sent message's ID recorded. A message that cannot be sent is
 * marked failed with the reason and stays listed until edited or deleted.
 * Returns how many messages were handled.
 */
export async function doDeliverScheduledMessages(services: Services, now: Date): Promise<number> {
  const due = await services.db.read((db) =>
    db.scheduledMessage.findMany({
      where: { delivered: false, failed: false, scheduledTimestamp: { lte: now } },
      orderBy: [{ scheduledTimestamp: 'asc' }, { id: 'asc' }],
    }),
  );
  let handled = 0;
  for (const message of due) {
    try {
      // Claiming, sending and recording happen in one transaction: a crash
      // leaves the message either sent and marked, or untouched for the next
      // tick; and a second process finds it claimed and skips it.
      const sent = await services.db.write(async (tx, onCommit) => {
        const claimed = await tx.scheduledMessage.updateMany({
          where: { id: message.id, delivered: false, failed: false },
          data: { delivered: true },
        });
        if (claimed.count === 0) return false; // edited, deleted or taken by another process meanwhile
        const { realm, sender } = await checkDeliverable(tx, message, now);
        const messageId = await sendMessageIn(tx, onCommit, services, realm, sender, {
          type: message.type,
          to: scheduledRecipient(message),
          topic: message.type === 'stream' ? message.topic : undefined,
          content: message.content,
          readBySender: message.readBySender,
          client: message.sendingClient,
        });
        await tx.scheduledMessage.update({
          where: { id: message.id },
          data: { deliveredMessageId: messageId },
        });
        onCommit(() =>
          services.bus.publish(
            { type: 'scheduled_messages', op: 'remove', scheduled_message_id: message.id },
            [message.senderId],
          ),
        );
        return true;
      });
      if (sent) handled++;
    } catch (error) {
      handled++;
      const reason = error instanceof ApiError ? error.message : 'Internal server error';
      if (!(error instanceof ApiError))
        services.log.error('scheduled message delivery failed', {
          scheduledMessageId: message.id,
          error: String(error),
        });
      await services.db.write(async (tx, onCommit) => {
        const marked = await tx.scheduledMessage.updateMany({
          where: { id: message.id, delivered: false },
          data: { failed: true, failureMessage: reason },
        });
        if (marked.count === 0) return;
        const failed = await tx.scheduledMessage.findUniqueOrThrow({ where: { id: message.id } });
        onCommit(() =>
          services.bus.publish(
            {
              type: 'scheduled_messages',
              op: 'update',
              scheduled_message: presentScheduledMessage(failed),
            },
            [message.senderId],
          ),
        );
      });
    }
  }
  return handled;
}

/** The sender and organization of a due message, after the checks an authenticated request would pass. */
async function checkDeliverable(
  tx: Db,
  message: ScheduledMessage,
  now: Date,
): Promise<{ realm: Realm; sender: User }> {
  const sender = await tx.user.findUniqueOrThrow({ where: { id: message.senderId } });
  const realm = await tx.realm.findUniqueOrThrow({ where: { id: sender.realmId } });
  if (realm.deactivated) throw badRequest('This organization has been deactivated');
  if (!sender.isActive) throw badRequest('Account is deactivated');
  if (now.getTime() > message.scheduledTimestamp.getTime() + LATE_DELIVERY_CUTOFF_MS)
    throw badRequest('Message could not be sent at the scheduled time.');
  return { realm, sender };
}

// Scheduling, editing, cancelling and delivering messages sent later. Each
// change goes to the sender's own clients as a scheduled_messages event after
// it commits; delivery goes through the ordinary send path.
import { randomUUID } from 'node:crypto';
import {
  Prisma,
  type Realm,
  type ScheduledMessage,
  type User,
} from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { ApiError, badRequest, notFound } from '../../errors';
import {
  checkDeliveryTime,
  checkScheduledContent,
  presentScheduledMessage,
  scheduledRecipient,
  type ScheduledContent,
} from '../../lib/messages/scheduled-messages';
import { defaultReadBySender } from '../../lib/messages/message-send';
import { presentReminder, REMINDER, SEND_LATER } from '../../lib/messages/reminders';
import type { Services } from '../../services';
import { sendMessageIn } from './messages';
import { doEnsureSystemBot } from '../users/users';

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
    const existing = await tx.scheduledMessage.findFirst({
      where: { id, senderId: sender.id, deliveryType: SEND_LATER },
    });
    if (!existing) throw missing();
    if (existing.delivered) throw badRequest('Scheduled message was already sent');
    if (existing.failed && change.at === undefined)
      throw badRequest('Scheduled delivery time must be in the future.');
    // An edit also cancels a claim: a delivery run holding one finds it gone
    // and leaves the message to the next run, which sends the edited one.
    const data: Partial<ScheduledMessage> = {
      failed: false,
      failureMessage: null,
      claimToken: null,
      claimedUntil: null,
    };
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
    // Conditional, so that a delivery committing meanwhile wins and the edit fails.
    const changed = await tx.scheduledMessage.updateMany({
      where: { id: existing.id, delivered: false },
      data,
    });
    if (changed.count === 0) throw badRequest('Scheduled message was already sent');
    const updated = await tx.scheduledMessage.findUniqueOrThrow({ where: { id: existing.id } });
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
    const existing = await tx.scheduledMessage.findFirst({
      where: { id, senderId: sender.id, deliveryType: SEND_LATER },
    });
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

/** How long a delivery run's claim on a due message holds before any other run may take it over. */
export const DELIVERY_CLAIM_MS = 60_000;
/** How many due messages a delivery run claims at once. */
const CLAIM_BATCH = 20;

/**
 * Claims up to `limit` messages due at `now` that nobody holds (unclaimed, or
 * claimed by a run whose claim has lapsed) for the run named `token`, until
 * `now` + DELIVERY_CLAIM_MS; answers their IDs, oldest first. One statement
 * claims them: on PostgreSQL, rows another run is claiming at the same moment
 * are skipped rather than waited for (`FOR UPDATE SKIP LOCKED`), and a row
 * whose claim was taken meanwhile no longer matches; SQLite runs one writer
 * at a time. A run that dies leaves its claims to lapse.
 */
export async function doClaimDueScheduledMessages(
  services: Services,
  now: Date,
  token: string,
  limit = CLAIM_BATCH,
): Promise<number[]> {
  const until = new Date(now.getTime() + DELIVERY_CLAIM_MS);
  const claimable = Prisma.sql`
    "delivered" = ${false} AND "failed" = ${false} AND "scheduledTimestamp" <= ${now}
    AND ("claimedUntil" IS NULL OR "claimedUntil" <= ${now})`;
  // Most runs find nothing due: a read tells them so without a write
  // transaction (on SQLite, the lock every other write waits for).
  const any = await services.db.read((db) =>
    queryRows(db, Prisma.sql`SELECT 1 AS "due" FROM "ScheduledMessage" WHERE ${claimable} LIMIT 1`),
  );
  if (any.length === 0) return [];
  const lock =
    services.db.provider === 'postgresql' ? Prisma.sql`FOR UPDATE SKIP LOCKED` : Prisma.empty;
  const rows = await services.db.write((tx) =>
    queryRows<{ id: number | bigint; scheduledTimestamp: Date }>(
      tx,
      Prisma.sql`
        UPDATE "ScheduledMessage" SET "claimToken" = ${token}, "claimedUntil" = ${until}
        WHERE "id" IN (
          SELECT "id" FROM "ScheduledMessage"
          WHERE ${claimable}
          ORDER BY "scheduledTimestamp", "id"
          LIMIT ${limit}
          ${lock}
        )
        RETURNING "id", "scheduledTimestamp"`,
    ),
  );
  return rows
    .sort(
      (a, b) =>
        a.scheduledTimestamp.getTime() - b.scheduledTimestamp.getTime() ||
        Number(a.id) - Number(b.id),
    )
    .map((row) => Number(row.id));
}

/**
 * Sends every scheduled message due at `now`, in batches claimed for this run
 * (see doClaimDueScheduledMessages), so that processes running deliveries at
 * the same time send each message once. Each is sent as its sender, in the
 * transaction that marks it delivered, and only while this run's claim still
 * holds. A message that cannot be sent is marked failed with the reason and
 * stays listed until edited or deleted. Returns how many messages were handled.
 */
export async function doDeliverScheduledMessages(services: Services, now: Date): Promise<number> {
  const token = randomUUID();
  let handled = 0;
  for (;;) {
    const claimed = await doClaimDueScheduledMessages(services, now, token);
    if (claimed.length === 0) return handled;
    for (const id of claimed)
      if (await doDeliverClaimedMessage(services, id, token, now)) handled++;
  }
}

/**
 * Sends the scheduled message `id` claimed by the run `token`, or marks it
 * failed; answers false, doing nothing, when the claim no longer holds (the
 * message was edited, deleted, or taken over by another run after the claim
 * lapsed). A crash before the commit leaves the message claimed and unsent,
 * for another run once the claim lapses.
 */
export async function doDeliverClaimedMessage(
  services: Services,
  id: number,
  token: string,
  now: Date,
): Promise<boolean> {
  const ours = { id, claimToken: token, delivered: false, failed: false };
  // A reminder is sent by Notification Bot, made beforehand in its own transaction.
  const claimed = await services.db.read((db) => db.scheduledMessage.findUnique({ where: { id } }));
  const reminder = claimed?.deliveryType === REMINDER;
  try {
    const bot = reminder
      ? await doEnsureSystemBot(
          services,
          await services.db.read((db) =>
            db.realm.findUniqueOrThrow({ where: { id: claimed.realmId } }),
          ),
          'notification',
        )
      : null;
    return await services.db.write(async (tx, onCommit) => {
      // Marking first takes the row: a concurrent edit or claim waits for this
      // transaction, and finds the message sent.
      const taken = await tx.scheduledMessage.updateMany({
        where: { ...ours, scheduledTimestamp: { lte: now } },
        data: { delivered: true, claimToken: null, claimedUntil: null },
      });
      if (taken.count === 0) return false;
      const message = await tx.scheduledMessage.findUniqueOrThrow({ where: { id } });
      const { realm, sender } = await checkDeliverable(tx, message, now);
      // A reminder goes from Notification Bot to the user who asked for it.
      const messageId = await sendMessageIn(tx, onCommit, services, realm, bot ?? sender, {
        type: message.type,
        to: bot ? [sender.id] : scheduledRecipient(message),
        topic: message.type === 'stream' ? message.topic : undefined,
        content: message.content,
        readBySender: message.readBySender,
        client: message.sendingClient,
      });
      await tx.scheduledMessage.update({ where: { id }, data: { deliveredMessageId: messageId } });
      onCommit(() =>
        services.bus.publish(
          bot
            ? { type: 'reminders', op: 'remove', reminder_id: id }
            : { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id },
          [message.senderId],
        ),
      );
      return true;
    });
  } catch (error) {
    const reason = error instanceof ApiError ? error.message : 'Internal server error';
    if (!(error instanceof ApiError))
      services.log.error('scheduled message delivery failed', {
        scheduledMessageId: id,
        error: String(error),
      });
    return services.db.write(async (tx, onCommit) => {
      const marked = await tx.scheduledMessage.updateMany({
        where: ours,
        data: { failed: true, failureMessage: reason, claimToken: null, claimedUntil: null },
      });
      if (marked.count === 0) return false;
      const failed = await tx.scheduledMessage.findUniqueOrThrow({ where: { id } });
      // Reminders have no update event: a failed one is shown anew (remove, then add).
      onCommit(() => {
        if (failed.deliveryType === REMINDER) {
          services.bus.publish({ type: 'reminders', op: 'remove', reminder_id: id }, [
            failed.senderId,
          ]);
          services.bus.publish(
            { type: 'reminders', op: 'add', reminders: [presentReminder(failed)] },
            [failed.senderId],
          );
          return;
        }
        services.bus.publish(
          {
            type: 'scheduled_messages',
            op: 'update',
            scheduled_message: presentScheduledMessage(failed),
          },
          [failed.senderId],
        );
      });
      return true;
    });
  }
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

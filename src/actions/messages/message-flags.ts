// Changing a user's personal message flags: on listed messages, on every
// unread message, on a channel's or a topic's unread messages, and on the
// unread messages of a sender the user mutes. Each change that touches any
// message goes to the user's clients as one update_message_flags event after
// the commit, listing only the messages whose flag actually changed.
import { Prisma, type Stream, type User } from '../../../generated/prisma/sqlite/client';
import { executeRows, queryRows, type Db, type OnCommit } from '../../db/client';
import { badRequest } from '../../errors';
import type { EventBody } from '../../events/queues';
import { editableFlags, isEditableFlag, isServerFlag } from '../../lib/messages/flags';
import { invalidMessage, readableMessages } from '../../lib/messages/message-access';
import { unreadMessageDetails } from '../../lib/messages/unreads';
import type { Services } from '../../services';

const { sql } = Prisma;

/** What changing a flag did. */
export interface FlagUpdate {
  /** The messages whose flag changed, in the order asked. */
  updated: number[];
  /**
   * When marking messages unread: the channels whose messages were skipped
   * because the user is not subscribed to them, sorted (null otherwise).
   */
  ignoredChannels: number[] | null;
}

/** The values a flag has on a message the user never received but may read. */
const HISTORICAL_DEFAULTS: Record<string, boolean> = { read: true, starred: false };

/** The event that tells the user's clients that messages were marked read. */
function readEvent(messages: number[], all: boolean): EventBody {
  return {
    type: 'update_message_flags',
    op: 'add',
    operation: 'add',
    flag: 'read',
    messages,
    all,
  };
}

/**
 * Adds or removes a personal flag on messages. Messages whose flag already has
 * the asked value are left alone and not reported. A message the user can
 * read but never received counts as read and not starred; changing that gets
 * it a `historical` row (an unreadable one: "Invalid message(s)"). Marking
 * messages unread skips those of channels the user is not subscribed to.
 */
export async function doUpdateMessageFlags(
  services: Services,
  user: User,
  op: string,
  flag: string,
  messageIds: number[],
): Promise<FlagUpdate> {
  if (!isEditableFlag(flag))
    throw badRequest(
      isServerFlag(flag) ? `Flag not editable: '${flag}'` : `Invalid flag: '${flag}'`,
    );
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
  const column = editableFlags[flag];
  const adding = op === 'add';
  return services.db.write(async (tx, onCommit) => {
    let ids = [...new Set(messageIds)];
    let ignoredChannels: number[] | null = null;
    if (flag === 'read' && !adding) {
      const subscribed = (
        await tx.subscription.findMany({
          where: { userId: user.id, active: true },
          select: { streamId: true },
        })
      ).map((s) => s.streamId);
      const elsewhere = ids.length
        ? await tx.message.findMany({
            where: { id: { in: ids }, streamId: { not: null, notIn: subscribed } },
            select: { id: true, streamId: true },
          })
        : [];
      const skip = new Set(elsewhere.map((m) => m.id));
      ids = ids.filter((id) => !skip.has(id));
      ignoredChannels = [...new Set(elsewhere.map((m) => m.streamId!))].sort((a, b) => a - b);
    }
    const rows = ids.length
      ? await tx.userMessage.findMany({
          where: { userId: user.id, messageId: { in: ids } },
          select: { messageId: true, read: true, starred: true },
        })
      : [];
    const rowOf = new Map(rows.map((r) => [r.messageId, r]));
    // `collapsed` is accepted but not kept: it always reads as unset.
    const current = (id: number) => {
      if (column === null) return false;
      const row = rowOf.get(id);
      return row ? row[column] : HISTORICAL_DEFAULTS[column];
    };
    const updated = ids.filter((id) => current(id) !== adding);
    const historical = updated.filter((id) => !rowOf.has(id));
    if (historical.length) {
      const readable = await readableMessages(tx, user, historical);
      if (readable.size !== historical.length) throw invalidMessage();
      await tx.userMessage.createMany({
        data: historical.map((messageId) => ({
          userId: user.id,
          messageId,
          historical: true,
          read: column === 'read' ? adding : true,
          starred: column === 'starred' ? adding : false,
        })),
      });
    }
    const existing = updated.filter((id) => rowOf.has(id));
    if (column !== null && existing.length) {
      await tx.userMessage.updateMany({
        where: { userId: user.id, messageId: { in: existing } },
        data: { [column]: adding },
      });
    }
    const details =
      flag === 'read' && !adding ? await unreadMessageDetails(tx, user.id, updated) : null;
    const change = { type: 'update_message_flags', flag, messages: updated, all: false } as const;
    const event: EventBody = adding
      ? { ...change, op: 'add', operation: 'add' }
      : {
          ...change,
          op: 'remove',
          operation: 'remove',
          ...(details ? { message_details: details } : {}),
        };
    onCommit(() => services.bus.publish(event, [user.id]));
    return { updated, ignoredChannels };
  });
}

/**
 * Marks every unread message of the user read. The event names no messages
 * but says `all`: clients drop their whole unread state. Returns the count.
 */
export async function doMarkAllAsRead(services: Services, user: User): Promise<number> {
  return services.db.write(async (tx, onCommit) => {
    const count = await executeRows(
      tx,
      sql`UPDATE "UserMessage" SET "read" = true WHERE "userId" = ${user.id} AND "read" = false`,
    );
    onCommit(() => services.bus.publish(readEvent([], true), [user.id]));
    return count;
  });
}

/**
 * Marks the user's unread messages of a channel read, or of one topic of it
 * when `topicLower` is given (the topic lowercased). Returns how many changed;
 * no event when none did.
 */
export async function doMarkChannelAsRead(
  services: Services,
  user: User,
  stream: Pick<Stream, 'id'>,
  topicLower?: string,
): Promise<number> {
  const inTopic =
    topicLower !== undefined ? sql` AND m."topicLower" = ${topicLower}` : Prisma.empty;
  return services.db.write((tx, onCommit) =>
    markRead(tx, onCommit, services, user.id, sql`m."streamId" = ${stream.id}${inTopic}`),
  );
}

/**
 * Inside an open transaction, marks the user's unread messages matching
 * `condition` (over "Message" m) read; the event goes out with the commit.
 * Returns how many changed.
 */
export async function markRead(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  userId: number,
  condition: Prisma.Sql,
): Promise<number> {
  const rows = await queryRows<{ id: number | bigint }>(
    tx,
    sql`SELECT um."messageId" AS "id" FROM "UserMessage" um JOIN "Message" m ON m."id" = um."messageId"
        WHERE um."userId" = ${userId} AND um."read" = false AND ${condition}
        ORDER BY um."messageId"`,
  );
  const ids = rows.map((r) => Number(r.id));
  if (ids.length === 0) return 0;
  await executeRows(
    tx,
    sql`UPDATE "UserMessage" SET "read" = true WHERE "userId" = ${userId} AND "read" = false
        AND "messageId" IN (SELECT m."id" FROM "Message" m WHERE ${condition})`,
  );
  onCommit(() => services.bus.publish(readEvent(ids, false), [userId]));
  return ids.length;
}

// The write step of a message edit, inside its transaction: the target's new
// content (with its recipients' mention flags and the uploads it claims or
// detaches), the moved messages' topic and channel with their edit history,
// and the recipients' rows of a channel move.
import type { Message, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import type { RenderResult } from '../../lib/markdown';
import { isGuest } from '../../lib/channels/stream-access';
import { withEdit, type EditEntry } from '../../lib/messages/edit-history';
import type { FlagColumns } from '../../lib/messages/flags';
import { resolveKind, subscribersAmong } from '../../lib/messages/message-edit-rules';
import { isMeMessage } from '../../lib/messages/message-send';
import { usersAlerted } from '../../lib/users/alert-words';

/** An edit that passed its checks: what changes, and which messages it applies to. */
export interface EditPlan {
  now: Date;
  /** The message the request names, as it was before the edit. */
  message: Message;
  /** Its channel; null for a direct message. */
  stream: Stream | null;
  /** The new content and its rendering, when the content changes. */
  content?: { text: string; rendered: RenderResult };
  /** The new topic, when it changes. */
  topic?: string;
  /** The channel the messages move to, when they change channel. */
  target: Stream | null;
  mode: 'change_one' | 'change_later' | 'change_all';
  /** The messages whose topic or channel changes (empty when neither does). */
  moved: Message[];
}

/** What the write step changed, for the events sent after the commit. */
export interface EditWritten {
  /** The uploads the new content no longer references. */
  detached: DetachedUpload[];
  /** The uploads linked to or unlinked from the message by the edit. */
  relinkedAttachmentIds: number[];
  /** The changed messages' IDs, ascending. */
  messageIds: number[];
  /** Everyone holding a row for a changed message, with the flags of their row for the target when they have one. */
  holders: (Partial<FlagColumns> & { userId: number })[];
  /** Users who can no longer see the messages after a channel move. */
  losing: number[];
}

/**
 * Whether changing `m` to `topic` in `target` counts as a move for its
 * `last_moved_timestamp`: a change of channel, or of topic other than resolving
 * or unresolving it (as Zulip counts it, feature level 365).
 */
function countsAsMove(m: Message, topic: string | undefined, target: Stream | null): boolean {
  if (target !== null && target.id !== m.streamId) return true;
  return topic !== undefined && topic !== m.topic && resolveKind(m.topic, topic) === null;
}

/**
 * Writes an edit: the target's content, then the moved messages' topic and
 * channel, then the recipients' rows. `last_edit_timestamp` follows content
 * edits only, `last_moved_timestamp` moves only.
 */
export async function writeEdit(tx: Db, editor: User, plan: EditPlan): Promise<EditWritten> {
  const { now, message, content, topic, target, moved } = plan;
  const seconds = Math.floor(now.getTime() / 1000);
  let detached: DetachedUpload[] = [];
  let relinkedAttachmentIds: number[] = [];
  if (content !== undefined) {
    const { text, rendered } = content;
    const entry: EditEntry = {
      user_id: editor.id,
      timestamp: seconds,
      prev_content: message.content,
      prev_rendered_content: message.renderedContent,
    };
    if (topic !== undefined) Object.assign(entry, { prev_topic: message.topic, topic });
    await tx.message.update({
      where: { id: message.id },
      data: {
        content: text,
        renderedContent: rendered.html,
        lastEditTime: now,
        editHistory: withEdit(message, entry),
        hasAttachment: rendered.hasAttachment,
        hasImage: rendered.hasImage,
        hasLink: rendered.hasLink,
        isMeMessage: isMeMessage(text),
        ...(topic !== undefined ? { topic, topicLower: topic.toLowerCase() } : {}),
        ...(countsAsMove(message, topic, target) ? { lastMovedTime: now } : {}),
      },
    });
    await updateMentionFlags(tx, message.id, rendered);
    await updateAlertWordFlags(tx, message, text);
    ({ detached, relinked: relinkedAttachmentIds } = await reattachUploads(
      tx,
      { id: message.senderId },
      message.id,
      rendered.uploadPathIds,
    ));
  }
  for (const m of moved) {
    if (m.id === message.id && content !== undefined) continue;
    const entry: EditEntry = { user_id: editor.id, timestamp: seconds };
    if (topic !== undefined) Object.assign(entry, { prev_topic: m.topic, topic });
    if (target !== null) Object.assign(entry, { prev_stream: m.streamId, stream: target.id });
    await tx.message.update({
      where: { id: m.id },
      data: {
        editHistory: withEdit(m, entry),
        ...(countsAsMove(m, topic, target) ? { lastMovedTime: now } : {}),
        ...(topic !== undefined ? { topic, topicLower: topic.toLowerCase() } : {}),
        ...(target !== null ? { streamId: target.id } : {}),
      },
    });
  }
  const messageIds = moved.length > 0 ? moved.map((m) => m.id).sort((a, b) => a - b) : [message.id];
  // The event carries these flags; Zulip's also carry historical (not sent here yet).
  const rows = await tx.userMessage.findMany({
    where: { messageId: { in: messageIds } },
    select: {
      userId: true,
      messageId: true,
      read: true,
      starred: true,
      mentioned: true,
      streamWildcardMentioned: true,
      topicWildcardMentioned: true,
      hasAlertWord: true,
    },
    orderBy: { messageId: 'asc' },
  });
  const holderOf = new Map<number, (typeof rows)[number]>();
  for (const r of rows)
    if (!holderOf.has(r.userId) || r.messageId === message.id) holderOf.set(r.userId, r);
  const losing = target !== null ? await moveRecipientRows(tx, target, messageIds) : [];
  if (
    target !== null &&
    (target.firstMessageId === null || target.firstMessageId > messageIds[0])
  ) {
    await tx.stream.update({ where: { id: target.id }, data: { firstMessageId: messageIds[0] } });
  }
  return {
    detached,
    relinkedAttachmentIds,
    messageIds,
    holders: [...holderOf.values()],
    losing,
  };
}

/** Resets the recipients' mention flags of `messageId` to what `rendered` mentions. */
async function updateMentionFlags(
  db: Db,
  messageId: number,
  rendered: RenderResult,
): Promise<void> {
  const mentioned = [...rendered.mentionedUserIds];
  await db.userMessage.updateMany({
    where: { messageId },
    data: {
      mentioned: false,
      streamWildcardMentioned: rendered.streamWildcard,
      topicWildcardMentioned: rendered.topicWildcard,
    },
  });
  if (mentioned.length > 0)
    await db.userMessage.updateMany({
      where: { messageId, userId: { in: mentioned } },
      data: { mentioned: true },
    });
}

/** Sets has_alert_word on `message` for exactly the recipients whose alert words the new `text` holds. */
async function updateAlertWordFlags(
  db: Db,
  message: Pick<Message, 'id' | 'realmId'>,
  text: string,
): Promise<void> {
  const recipients = await db.userMessage.findMany({
    where: { messageId: message.id },
    select: { userId: true },
  });
  const alerted = await usersAlerted(
    db,
    message.realmId,
    recipients.map((r) => r.userId),
    text,
  );
  await db.userMessage.updateMany({
    where: { messageId: message.id, userId: { notIn: [...alerted] } },
    data: { hasAlertWord: false },
  });
  if (alerted.size > 0)
    await db.userMessage.updateMany({
      where: { messageId: message.id, userId: { in: [...alerted] } },
      data: { hasAlertWord: true },
    });
}

/** An entry of `detached_uploads` (Part 2.10). */
export interface DetachedUpload {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: { id: number; date_sent: number }[];
}

/**
 * Links the sender's uploads the new content names, unlinks those it no
 * longer names, and returns the sender's unlinked files that no message
 * references any more, with the IDs of every upload linked or unlinked.
 */
async function reattachUploads(
  db: Db,
  sender: Pick<User, 'id'>,
  messageId: number,
  pathIds: string[],
): Promise<{ detached: DetachedUpload[]; relinked: number[] }> {
  const linked = await db.attachmentMessage.findMany({
    where: { messageId },
    include: { attachment: true },
  });
  const named = new Set(pathIds);
  const dropped = linked.filter((l) => !named.has(l.attachment.pathId));
  if (dropped.length > 0)
    await db.attachmentMessage.deleteMany({
      where: { messageId, attachmentId: { in: dropped.map((l) => l.attachmentId) } },
    });
  const have = new Set(linked.map((l) => l.attachment.pathId));
  const fresh = await db.attachment.findMany({
    where: { pathId: { in: pathIds.filter((p) => !have.has(p)) }, ownerId: sender.id },
    select: { id: true },
  });
  if (fresh.length > 0)
    await db.attachmentMessage.createMany({
      data: fresh.map((a) => ({ attachmentId: a.id, messageId })),
    });
  const detached: DetachedUpload[] = [];
  for (const { attachment: a } of dropped) {
    if (a.ownerId !== sender.id) continue;
    if ((await db.attachmentMessage.count({ where: { attachmentId: a.id } })) > 0) continue;
    detached.push({
      id: a.id,
      name: a.fileName,
      path_id: a.pathId,
      size: a.size,
      create_time: a.createTime.getTime(),
      messages: [],
    });
  }
  return {
    detached,
    relinked: [...dropped.map((l) => l.attachmentId), ...fresh.map((a) => a.id)],
  };
}

/**
 * After a channel move: recipients not subscribed to the target lose their
 * rows; subscribers of a private target with protected history get read
 * rows. Returns the users who can no longer see the messages.
 */
async function moveRecipientRows(tx: Db, target: Stream, ids: number[]): Promise<number[]> {
  const subscribers = await subscribersAmong(tx, target.id);
  const rows = await tx.userMessage.findMany({
    where: { messageId: { in: ids } },
    select: { userId: true, messageId: true },
  });
  const outsiders = [...new Set(rows.map((r) => r.userId).filter((id) => !subscribers.has(id)))];
  if (outsiders.length > 0)
    await tx.userMessage.deleteMany({
      where: { messageId: { in: ids }, userId: { in: outsiders } },
    });
  if (target.inviteOnly && !target.historyPublicToSubscribers) {
    const have = new Set(rows.map((r) => `${r.userId}:${r.messageId}`));
    const data = ids.flatMap((messageId) =>
      [...subscribers]
        .filter((userId) => !have.has(`${userId}:${messageId}`))
        .map((userId) => ({ userId, messageId, read: true })),
    );
    if (data.length > 0) await tx.userMessage.createMany({ data });
  }
  if (outsiders.length === 0) return [];
  if (target.inviteOnly) return outsiders;
  const guests = await tx.user.findMany({
    where: { id: { in: outsiders } },
    select: { id: true, role: true },
  });
  return guests.filter((u) => isGuest(u)).map((u) => u.id);
}

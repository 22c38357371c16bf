// Editing and moving messages (PATCH /messages/{id}), in three steps as
// sending is: the checks in Zulip's order (checkEdit), one transaction that
// rewrites the target and, for topic and channel moves, the other messages of
// its topic (writeEdit, in message-edit-writes.ts), and after the commit the
// update_message (and, to users losing access, delete_message) events.
// Notification Bot breadcrumbs are not posted.
import { createHash } from 'node:crypto';
import type { Message, Realm, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { EventOf } from '../../events/queues';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { checkTopicAllowed, normalizeTopic } from '../../lib/channels/topics';
import { renderMarkdown } from '../../lib/markdown';
import { publishDeletion } from '../../lib/messages/deletion';
import { buildRenderContext } from '../../lib/markdown/render-context';
import { flagList } from '../../lib/messages/flags';
import { checkMentions } from '../../lib/messages/mentions';
import { accessMessage, invalidMessage, readableMessages } from '../../lib/messages/message-access';
import {
  checkChannelMove,
  checkContentEdit,
  checkTopicEdit,
  checkWholeTopicLimit,
  isModeratorOrAbove,
  resolveKind,
  RESOLVED_TOPIC_PREFIX,
} from '../../lib/messages/message-edit-rules';
import { checkCanPost, isMeMessage, normalizeContent } from '../../lib/messages/message-send';
import type { Services } from '../../services';
import {
  writeEdit,
  type DetachedUpload,
  type EditPlan,
  type EditWritten,
} from './message-edit-writes';
import { publishAttachmentUpdates } from '../uploads/uploads';

/** What PATCH /messages/{id} asks. */
export interface EditRequest {
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: 'change_one' | 'change_later' | 'change_all';
  prevContentSha256?: string;
}

/** Edits or moves a message; returns the uploads the edit left unreferenced. */
export async function doUpdateMessage(
  services: Services,
  realm: Realm,
  user: User,
  messageId: number,
  request: EditRequest,
): Promise<DetachedUpload[]> {
  return services.db.write(async (tx, onCommit) => {
    const plan = await checkEdit(tx, services.config.externalUrl, realm, user, messageId, request);
    const written = await writeEdit(tx, user, plan);
    onCommit(() => publishEdit(services.bus, user, plan, written));
    await publishAttachmentUpdates(tx, onCommit, services, written.relinkedAttachmentIds);
    return written.detached;
  });
}

/** Loads the target message and its channel; an archived channel counts as inaccessible. */
async function loadTarget(
  tx: Db,
  user: User,
  messageId: number,
): Promise<{ message: Message; stream: Stream | null }> {
  const { message } = await accessMessage(tx, user, messageId);
  if (message.streamId === null) return { message, stream: null };
  const stream = await tx.stream.findUniqueOrThrow({ where: { id: message.streamId } });
  if (stream.isArchived) throw invalidMessage();
  return { message, stream };
}

/** The new content as stored: blank content becomes "(deleted)". */
function editedContent(raw: string): string {
  return raw.trim() === '' ? '(deleted)' : normalizeContent(raw);
}

/** Checks an edit in Zulip's order, with its messages; returns what the edit changes. */
async function checkEdit(
  tx: Db,
  externalUrl: string,
  realm: Realm,
  user: User,
  messageId: number,
  request: EditRequest,
): Promise<EditPlan> {
  const now = new Date();
  const { message, stream } = await loadTarget(tx, user, messageId);
  if (request.content !== undefined) checkContentEdit(realm, user, message, now);
  const rawTopic = request.topic?.trim();
  let topic = request.topic !== undefined ? normalizeTopic(request.topic) : undefined;
  if (topic === message.topic) topic = undefined;
  const targetId = request.streamId === message.streamId ? undefined : request.streamId;
  if (request.content === undefined && topic === undefined && targetId === undefined)
    throw badRequest('Nothing to change');
  if (stream === null && topic !== undefined)
    throw badRequest('Direct messages cannot have topics.');
  if (stream === null && targetId !== undefined)
    throw badRequest('Direct messages cannot be moved to channels.');
  const mode = request.propagateMode;
  if (mode !== 'change_one' && topic === undefined && targetId === undefined)
    throw badRequest('Invalid propagate_mode without topic edit');
  if (
    message.topic === '' &&
    (topic === RESOLVED_TOPIC_PREFIX.trim() || rawTopic === RESOLVED_TOPIC_PREFIX.trim())
  )
    throw badRequest('General chat cannot be marked as resolved');
  if (request.content !== undefined && targetId !== undefined)
    throw badRequest('Cannot change message content while changing channel');
  if (
    request.prevContentSha256 !== undefined &&
    request.prevContentSha256 !== createHash('sha256').update(message.content).digest('hex')
  ) {
    throw new ApiError('Message was edited by another client.', 'EXPECTATION_MISMATCH');
  }
  const text = request.content !== undefined ? editedContent(request.content) : undefined;
  const access = new ChannelAccess(tx, user);
  const resolving = topic !== undefined ? resolveKind(message.topic, topic) : null;
  let target: Stream | null = null;
  if (stream !== null && targetId !== undefined) {
    target = await tx.stream.findFirst({ where: { id: targetId, realmId: realm.id } });
    if (!target || !(await access.hasContentAccess(target))) throw badRequest('Invalid channel ID');
  }
  if (stream !== null && (topic !== undefined || target !== null))
    checkTopicAllowed(realm, target ?? stream, topic ?? message.topic);
  if (stream !== null && topic !== undefined)
    await checkTopicEdit(
      access,
      realm,
      stream,
      message,
      resolving !== null,
      mode !== 'change_all',
      now,
    );
  let content: EditPlan['content'];
  if (text !== undefined) {
    content = {
      text,
      rendered: renderMarkdown(text, await buildRenderContext(tx, realm, text, externalUrl)),
    };
    await checkMentions(
      tx,
      access,
      realm,
      content.rendered,
      stream !== null ? { streamId: stream.id, topicLower: message.topicLower } : null,
    );
  }
  if (stream !== null && target !== null) {
    await checkChannelMove(access, realm, stream, message, mode !== 'change_all', now);
    await checkCanPost(tx, access, target);
  }
  const moved =
    stream !== null && (topic !== undefined || target !== null)
      ? await messagesToMove(tx, user, message, mode)
      : [];
  if (
    mode === 'change_all' &&
    resolving === null &&
    moved.length > 0 &&
    !isModeratorOrAbove(user)
  ) {
    const limits = [
      topic !== undefined ? realm.moveMessagesWithinStreamLimitSeconds : null,
      target !== null ? realm.moveMessagesBetweenStreamsLimitSeconds : null,
    ].filter((l): l is number => l !== null);
    if (limits.length > 0) checkWholeTopicLimit(moved, Math.min(...limits), now);
  }
  return { now, message, stream, content, topic, target, mode, moved };
}

/** The messages a topic or channel change applies to, limited to those the actor can read. */
async function messagesToMove(
  tx: Db,
  user: User,
  message: Message,
  mode: EditRequest['propagateMode'],
): Promise<Message[]> {
  if (mode === 'change_one') return [message];
  const candidates = await tx.message.findMany({
    where: {
      streamId: message.streamId,
      topicLower: message.topicLower,
      ...(mode === 'change_later' ? { id: { gte: message.id } } : {}),
    },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  const readable = await readableMessages(
    tx,
    user,
    candidates.map((c) => c.id),
  );
  return [...readable.values()].map((r) => r.message).sort((a, b) => a.id - b.id);
}

/**
 * Sends update_message to everyone holding a row for a changed message, one
 * publication per set of flags, and delete_message to those who lost access.
 */
function publishEdit(bus: EventBus, editor: User, plan: EditPlan, written: EditWritten): void {
  const { message, stream, content, topic, target, mode } = plan;
  const event: Omit<EventOf<'update_message'>, 'flags'> = {
    type: 'update_message',
    user_id: editor.id,
    edit_timestamp: Math.floor(plan.now.getTime() / 1000),
    message_id: message.id,
    message_ids: written.messageIds,
    rendering_only: false,
  };
  if (stream !== null) Object.assign(event, { stream_id: stream.id, stream_name: stream.name });
  if (content !== undefined) {
    Object.assign(event, {
      orig_content: message.content,
      orig_rendered_content: message.renderedContent,
      content: content.text,
      rendered_content: content.rendered.html,
      is_me_message: isMeMessage(content.text),
    });
  }
  if (topic !== undefined || target !== null) {
    event.propagate_mode = mode;
    event.orig_subject = message.topic;
    if (topic !== undefined) Object.assign(event, { subject: topic, topic_links: [] });
    if (target !== null) event.new_stream_id = target.id;
  }
  const losing = new Set(written.losing);
  const byFlags = new Map<string, number[]>();
  for (const holder of written.holders) {
    if (losing.has(holder.userId)) continue;
    const key = flagList(holder).join(',');
    byFlags.set(key, [...(byFlags.get(key) ?? []), holder.userId]);
  }
  for (const [key, userIds] of byFlags)
    bus.publish({ ...event, flags: key === '' ? [] : key.split(',') }, userIds);
  if (stream !== null && written.losing.length > 0) {
    publishDeletion(
      bus,
      { messageIds: written.messageIds, channel: { streamId: stream.id, topic: message.topic } },
      written.losing,
    );
  }
}

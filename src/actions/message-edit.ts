// Editing and moving messages (PATCH /messages/{id}): the checks in Zulip's
// order, then one transaction that rewrites the target (and, for topic and
// channel moves, the other messages of its topic), records the edit history,
// fixes the recipients' rows of a channel move, and after the commit sends
// update_message (and, to users losing access, delete_message) events.
// Notification Bot breadcrumbs are not posted: this server has no such bot.
import { createHash } from 'node:crypto';
import type { Message, Realm, Stream, User } from '../../generated/prisma/sqlite/client';
import type { Db } from '../db/client';
import { ApiError, badRequest } from '../errors';
import { withEdit, type EditEntry } from '../lib/messages/edit-history';
import { renderMarkdown } from '../lib/markdown';
import { accessMessage, invalidMessage, readableMessages } from '../lib/messages/message-access';
import { checkEditMentions } from '../lib/messages/mentions';
import { checkChannelMove, checkContentEdit, checkTopicEdit, checkWholeTopicLimit, isModeratorOrAbove, resolveKind, subscribersAmong, RESOLVED_TOPIC_PREFIX } from '../lib/messages/message-edit-rules';
import { checkCanPost, normalizeContent } from '../lib/messages/message-send';
import { buildRenderContext } from '../lib/markdown/render-context';
import { ChannelAccess, isGuest } from '../lib/channels/stream-access';
import { checkTopicAllowed, normalizeTopic } from '../lib/channels/topics';
import type { Services } from '../services';
import { reattachUploads, updateMentionFlags, type DetachedUpload } from './message-edit-content';

/** What PATCH /messages/{id} asks. */
export interface EditRequest {
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: 'change_one' | 'change_later' | 'change_all';
  prevContentSha256?: string;
}

/** Loads the target message and its channel; an archived channel counts as inaccessible. */
async function loadTarget(tx: Db, user: User, messageId: number): Promise<{ message: Message; stream: Stream | null }> {
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

/** Edits or moves a message; returns the uploads the edit left unreferenced. */
export async function doUpdateMessage(services: Services, realm: Realm, user: User, messageId: number, request: EditRequest): Promise<DetachedUpload[]> {
  return services.db.write(async (tx, onCommit) => {
    const now = new Date();
    const { message, stream } = await loadTarget(tx, user, messageId);
    if (request.content !== undefined) checkContentEdit(realm, user, message, now);
    const rawTopic = request.topic?.trim();
    let topic = request.topic !== undefined ? normalizeTopic(request.topic) : undefined;
    if (topic === message.topic) topic = undefined;
    const targetId = request.streamId === message.streamId ? undefined : request.streamId;
    if (request.content === undefined && topic === undefined && targetId === undefined) throw badRequest('Nothing to change');
    if (stream === null && topic !== undefined) throw badRequest('Direct messages cannot have topics.');
    if (stream === null && targetId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
    const mode = request.propagateMode;
    if (mode !== 'change_one' && topic === undefined && targetId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
    if (message.topic === '' && (topic === RESOLVED_TOPIC_PREFIX.trim() || rawTopic === RESOLVED_TOPIC_PREFIX.trim())) throw badRequest('General chat cannot be marked as resolved');
    if (request.content !== undefined && targetId !== undefined) throw badRequest('Cannot change message content while changing channel');
    if (request.prevContentSha256 !== undefined && request.prevContentSha256 !== createHash('sha256').update(message.content).digest('hex')) {
      throw new ApiError('Message was edited by another client.', 'EXPECTATION_MISMATCH');
    }
    const content = request.content !== undefined ? editedContent(request.content) : undefined;
    const access = new ChannelAccess(tx, user);
    const resolving = topic !== undefined ? resolveKind(message.topic, topic) : null;
    let target: Stream | null = null;
    if (stream !== null && targetId !== undefined) {
      target = await tx.stream.findFirst({ where: { id: targetId, realmId: realm.id } });
      if (!target || !(await access.hasContentAccess(target))) throw badRequest('Invalid channel ID');
    }
    if (stream !== null && (topic !== undefined || target !== null)) checkTopicAllowed(realm, target ?? stream, topic ?? message.topic);
    if (stream !== null && topic !== undefined) await checkTopicEdit(access, realm, stream, message, resolving !== null, mode !== 'change_all', now);
    let rendered = null;
    if (content !== undefined) {
      rendered = renderMarkdown(content, await buildRenderContext(tx, realm, content, services.config.externalUrl));
      await checkEditMentions(tx, access, realm, message, rendered);
    }
    if (stream !== null && target !== null) {
      await checkChannelMove(access, realm, stream, message, mode !== 'change_all', now);
      await checkCanPost(tx, access, target);
    }
    const moved = stream !== null && (topic !== undefined || target !== null) ? await messagesToMove(tx, user, message, mode) : [];
    if (mode === 'change_all' && resolving === null && moved.length > 0 && !isModeratorOrAbove(user)) {
      const limits = [topic !== undefined ? realm.moveMessagesWithinStreamLimitSeconds : null, target !== null ? realm.moveMessagesBetweenStreamsLimitSeconds : null].filter((l): l is number => l !== null);
      if (limits.length > 0) checkWholeTopicLimit(moved, Math.min(...limits), now);
    }

    // Write: the target's content, then the moved messages' topic and channel.
    let detached: DetachedUpload[] = [];
    const seconds = Math.floor(now.getTime() / 1000);
    if (content !== undefined && rendered !== null) {
      const entry: EditEntry = { user_id: user.id, timestamp: seconds, prev_content: message.content, prev_rendered_content: message.renderedContent };
      if (topic !== undefined) Object.assign(entry, { prev_topic: message.topic, topic });
      await tx.message.update({
        where: { id: message.id },
        data: {
          content, renderedContent: rendered.html, lastEditTime: now, editHistory: withEdit(message, entry),
          hasAttachment: rendered.hasAttachment, hasImage: rendered.hasImage, hasLink: rendered.hasLink,
          isMeMessage: /^\/me\s/.test(content) && !content.includes('\n'),
          ...(topic !== undefined ? { topic, topicLower: topic.toLowerCase(), lastMovedTime: now } : {}),
        },
      });
      await updateMentionFlags(tx, message.id, rendered);
      detached = await reattachUploads(tx, { id: message.senderId }, message.id, rendered.uploadPathIds);
    }
    for (const m of moved) {
      if (m.id === message.id && content !== undefined) continue;
      const entry: EditEntry = { user_id: user.id, timestamp: seconds };
      if (topic !== undefined) Object.assign(entry, { prev_topic: m.topic, topic });
      if (target !== null) Object.assign(entry, { prev_stream: m.streamId, stream: target.id });
      await tx.message.update({
        where: { id: m.id },
        data: {
          editHistory: withEdit(m, entry), lastEditTime: now, lastMovedTime: now,
          ...(topic !== undefined ? { topic, topicLower: topic.toLowerCase() } : {}),
          ...(target !== null ? { streamId: target.id } : {}),
        },
      });
    }
    const movedIds = moved.length > 0 ? moved.map((m) => m.id).sort((a, b) => a - b) : [message.id];
    // Everyone holding a row for a changed message hears of it, with the flags of their row for the target when they have one.
    const rows = await tx.userMessage.findMany({ where: { messageId: { in: movedIds } }, orderBy: { messageId: 'asc' } });
    const holderOf = new Map<number, (typeof rows)[number]>();
    for (const r of rows) if (!holderOf.has(r.userId) || r.messageId === message.id) holderOf.set(r.userId, r);
    const holders = [...holderOf.values()];
    let losing: number[] = [];
    if (target !== null) losing = await moveRecipientRows(tx, target, movedIds);
    if (target !== null && (target.firstMessageId === null || target.firstMessageId > movedIds[0])) {
      await tx.stream.update({ where: { id: target.id }, data: { firstMessageId: movedIds[0] } });
    }

    const event: { type: string } & Record<string, unknown> = {
      type: 'update_message', user_id: user.id, edit_timestamp: seconds, message_id: message.id, message_ids: movedIds, rendering_only: false,
    };
    if (stream !== null) Object.assign(event, { stream_id: stream.id, stream_name: stream.name });
    if (content !== undefined && rendered !== null) {
      Object.assign(event, { orig_content: message.content, orig_rendered_content: message.renderedContent, content, rendered_content: rendered.html, is_me_message: /^\/me\s/.test(content) && !content.includes('\n') });
    }
    if (topic !== undefined || target !== null) {
      Object.assign(event, { propagate_mode: mode, orig_subject: message.topic });
      if (topic !== undefined) Object.assign(event, { subject: topic, topic_links: [] });
      if (target !== null) event.new_stream_id = target.id;
    }
    const losingSet = new Set(losing);
    const deleteEvent = stream !== null ? { type: 'delete_message', message_ids: movedIds, message_type: 'stream', stream_id: stream.id, topic: message.topic } : null;
    onCommit(() => {
      const byFlags = new Map<string, number[]>();
      for (const h of holders) {
        if (losingSet.has(h.userId)) continue;
        const flags = flagNamesOf(h);
        byFlags.set(flags.join(','), [...(byFlags.get(flags.join(',')) ?? []), h.userId]);
      }
      for (const [key, userIds] of byFlags) services.bus.publish({ ...event, flags: key === '' ? [] : key.split(',') }, userIds);
      if (deleteEvent && losing.length > 0) services.bus.publish(deleteEvent, losing);
    });
    return detached;
  });
}

/** The API flag names of a recipient row. */
function flagNamesOf(f: { read: boolean; starred: boolean; mentioned: boolean; streamWildcardMentioned: boolean; topicWildcardMentioned: boolean }): string[] {
  const out: string[] = [];
  if (f.read) out.push('read');
  if (f.starred) out.push('starred');
  if (f.mentioned) out.push('mentioned');
  if (f.streamWildcardMentioned || f.topicWildcardMentioned) out.push('wildcard_mentioned');
  if (f.streamWildcardMentioned) out.push('stream_wildcard_mentioned');
  if (f.topicWildcardMentioned) out.push('topic_wildcard_mentioned');
  return out;
}

/** The messages a topic or channel change applies to, limited to those the actor can read. */
async function messagesToMove(tx: Db, user: User, message: Message, mode: EditRequest['propagateMode']): Promise<Message[]> {
  if (mode === 'change_one') return [message];
  const candidates = await tx.message.findMany({
    where: { streamId: message.streamId, topicLower: message.topicLower, ...(mode === 'change_later' ? { id: { gte: message.id } } : {}) },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  const readable = await readableMessages(tx, user, candidates.map((c) => c.id));
  return [...readable.values()].map((r) => r.message).sort((a, b) => a.id - b.id);
}

/**
 * After a channel move: recipients not subscribed to the target lose their
 * rows; subscribers of a private target with protected history get read
 * rows. Returns the users who can no longer see the messages.
 */
async function moveRecipientRows(tx: Db, target: Stream, ids: number[]): Promise<number[]> {
  const subscribers = await subscribersAmong(tx, target.id);
  const rows = await tx.userMessage.findMany({ where: { messageId: { in: ids } }, select: { userId: true, messageId: true } });
  const outsiders = [...new Set(rows.map((r) => r.userId).filter((id) => !subscribers.has(id)))];
  if (outsiders.length > 0) await tx.userMessage.deleteMany({ where: { messageId: { in: ids }, userId: { in: outsiders } } });
  if (target.inviteOnly && !target.historyPublicToSubscribers) {
    const have = new Set(rows.map((r) => `${r.userId}:${r.messageId}`));
    const data = ids.flatMap((messageId) => [...subscribers].filter((userId) => !have.has(`${userId}:${messageId}`)).map((userId) => ({ userId, messageId, read: true })));
    if (data.length > 0) await tx.userMessage.createMany({ data });
  }
  if (outsiders.length === 0) return [];
  if (target.inviteOnly) return outsiders;
  const guests = await tx.user.findMany({ where: { id: { in: outsiders } }, select: { id: true, role: true } });
  return guests.filter((u) => isGuest(u)).map((u) => u.id);
}

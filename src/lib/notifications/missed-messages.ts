// Reading what a notification email is about: of a person's pending
// messages, those they may still read and have not read yet, grouped by
// conversation (a channel's topic, or a direct message conversation).
import type { User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { channelSlug, encodeHashComponent } from '../markdown/channels';
import { readableMessages } from '../messages/message-access';
import type { EmailTrigger } from './email-rules';
import type { NotifiedConversation } from './message-email';

/** One pending notification of a person: the message and why. */
export interface PendingNotification {
  messageId: number;
  trigger: string;
}

/**
 * The conversations of `pending` that `user` still has unread and may read,
 * each with its messages oldest first; conversations in the order of their
 * first message. `base` is the organization's address.
 */
export async function missedConversations(
  db: Db,
  user: User,
  pending: PendingNotification[],
  base: string,
): Promise<NotifiedConversation[]> {
  const triggerOf = new Map(pending.map((p) => [p.messageId, p.trigger as EmailTrigger]));
  const readable = await readableMessages(db, user, [...triggerOf.keys()]);
  const unread = [...readable.values()]
    .filter(({ userMessage }) => userMessage !== null && !userMessage.read)
    .map(({ message }) => message)
    .sort((a, b) => a.id - b.id);
  if (unread.length === 0) return [];
  const peopleIds = new Set<number>();
  for (const m of unread) {
    peopleIds.add(m.senderId);
    for (const id of (m.dmKey ?? '').split(',').filter(Boolean)) peopleIds.add(Number(id));
  }
  const streamIds = [...new Set(unread.map((m) => m.streamId).filter((id) => id !== null))];
  const [people, streams] = await Promise.all([
    db.user.findMany({
      where: { id: { in: [...peopleIds] } },
      select: { id: true, fullName: true },
    }),
    db.stream.findMany({ where: { id: { in: streamIds } }, select: { id: true, name: true } }),
  ]);
  const nameOf = new Map(people.map((p) => [p.id, p.fullName]));
  const streamName = new Map(streams.map((s) => [s.id, s.name]));
  const conversations = new Map<string, NotifiedConversation>();
  for (const m of unread) {
    const key = m.streamId !== null ? `s${m.streamId}:${m.topicLower}` : `d${m.dmKey}`;
    let conversation = conversations.get(key);
    if (!conversation) {
      if (m.streamId !== null) {
        const name = streamName.get(m.streamId) ?? '';
        conversation = {
          kind: 'stream',
          streamName: name,
          topic: m.topic,
          otherNames: [],
          url: `${base}/#narrow/channel/${channelSlug(m.streamId, name)}/topic/${encodeHashComponent(m.topic)}/near/${m.id}`,
          messages: [],
        };
      } else {
        const others = (m.dmKey ?? '')
          .split(',')
          .map(Number)
          .filter((id) => id && id !== user.id);
        conversation = {
          kind: 'dm',
          streamName: '',
          topic: '',
          otherNames: others.map((id) => nameOf.get(id) ?? ''),
          url: `${base}/#narrow/dm/${others.join(',')}-${others.length === 1 ? 'dm' : 'group'}/near/${m.id}`,
          messages: [],
        };
      }
      conversations.set(key, conversation);
    }
    conversation.messages.push({
      id: m.id,
      senderName: nameOf.get(m.senderId) ?? '',
      dateSent: m.dateSent,
      html: m.renderedContent,
      content: m.content,
      trigger: triggerOf.get(m.id) ?? 'stream',
    });
  }
  return [...conversations.values()];
}

// Scheduled messages: messages the server sends later on a user's behalf.
// Checking one through the rules of an immediate send, and showing one.
import type { Realm, ScheduledMessage, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import { conversationPeers } from './drafts';
import { SEND_LATER } from './reminders';
import { normalizeContent, resolveAddressee } from './message-send';
import { render } from '../markdown/render-context';
import type { StateProvider } from '../state';
import { ChannelAccess } from '../channels/stream-access';

/** Where and what to send, as a client names it. */
export interface ScheduledContent {
  /** `stream`, `channel`, `private` or `direct`. */
  type: string;
  /** A channel ID, or a list of user IDs. */
  to: unknown;
  topic?: string;
  content: string;
}

/** The columns of a checked scheduled message. */
export type ScheduledRow = Pick<
  ScheduledMessage,
  'type' | 'streamId' | 'recipients' | 'topic' | 'content' | 'renderedContent'
>;

/** Refuses a delivery time that is not in the future. */
export function checkDeliveryTime(at: Date, now: Date): void {
  if (at.getTime() <= now.getTime())
    throw badRequest('Scheduled delivery time must be in the future.');
}

/**
 * Checks a message as POST /messages would (channel, posting permission,
 * topic policy, recipients, content) and renders it; returns the columns to store.
 */
export async function checkScheduledContent(
  db: Db,
  realm: Realm,
  sender: User,
  message: ScheduledContent,
  baseUrl: string,
): Promise<ScheduledRow> {
  const content = normalizeContent(message.content);
  const to = await resolveAddressee(
    db,
    new ChannelAccess(db, sender),
    realm,
    message.type,
    message.to,
    message.topic,
  );
  const { html } = await render(db, realm, content, baseUrl);
  if (to.kind === 'stream')
    return {
      type: 'stream',
      streamId: to.stream.id,
      recipients: '[]',
      topic: to.topic,
      content,
      renderedContent: html,
    };
  const peers = conversationPeers(
    sender.id,
    to.recipients.map((u) => u.id),
  );
  return {
    type: 'private',
    streamId: null,
    recipients: JSON.stringify(peers),
    topic: '',
    content,
    renderedContent: html,
  };
}

/** The `to` of a stored message: its channel ID, or the other participants' IDs. */
export function scheduledRecipient(
  message: Pick<ScheduledMessage, 'type' | 'streamId' | 'recipients'>,
): number | number[] {
  return message.type === 'stream'
    ? message.streamId!
    : (JSON.parse(message.recipients) as number[]);
}

/** A scheduled message as the API shows it (the topic only for channel messages). */
export function presentScheduledMessage(message: ScheduledMessage) {
  return {
    scheduled_message_id: message.id,
    type: message.type as 'stream' | 'private',
    to: scheduledRecipient(message),
    ...(message.type === 'stream' ? { topic: message.topic } : {}),
    content: message.content,
    rendered_content: message.renderedContent,
    scheduled_delivery_timestamp: Math.floor(message.scheduledTimestamp.getTime() / 1000),
    failed: message.failed,
  };
}

/** The user's undelivered scheduled messages, earliest delivery first. */
export async function listScheduledMessages(db: Db, userId: number): Promise<ScheduledMessage[]> {
  return db.scheduledMessage.findMany({
    where: { senderId: userId, delivered: false, deliveryType: SEND_LATER },
    orderBy: [{ scheduledTimestamp: 'asc' }, { id: 'asc' }],
  });
}

/** `scheduled_messages`: the user's undelivered scheduled messages. */
export const scheduledMessagesState: StateProvider = async ({ db, user }) => ({
  scheduled_messages: (await listScheduledMessages(db, user.id)).map(presentScheduledMessage),
});

// The message objects of GET /messages written straight as JSON text, byte
// for byte what JSON.stringify makes of presentMessage's objects (the same
// fields in the same order), without building those objects: what is the same
// for many messages of an answer (a sender's fields, a conversation's
// recipient, a flag list) is written once per answer and reused. Building 100
// message objects and serializing them took about a fifth of the CPU of
// reading a topic's newest 100 messages.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { editHistoryPolicies } from '../realm/realm';
import { displayTopic } from '../channels/topics';
import { apiEmail, avatarUrl, canSeeDeliveryEmail } from '../users/users';
import {
  dmParticipants,
  loadLookups,
  recipientId,
  visibleEditHistory,
  type PresentLookups,
  type PresentOptions,
  type PresentedMessage,
  type SearchMatch,
} from './messages';
import { flagList } from './flags';

/** The JSON of each flag list, by the list (flagsOfBits hands out one list per combination). */
const flagsJson = new WeakMap<readonly string[], string>();

function flagsText(flags: readonly string[]): string {
  let text = flagsJson.get(flags);
  if (text === undefined) flagsJson.set(flags, (text = JSON.stringify(flags)));
  return text;
}

const NO_ROW_FLAGS = flagList(null);

/** What an answer writes once and reuses: the fields of each sender and of each conversation. */
interface Pieces {
  /** `"sender_full_name":...,"sender_email":...,"sender_realm_str":...,"avatar_url":...` by sender. */
  sender: Map<number, string>;
  /** `"display_recipient":...,"recipient_id":...[,"stream_id":...]` by channel ID or DM key. */
  conversation: Map<number | string, string>;
}

/** The sender's fields of a message object, from `sender_full_name` to `avatar_url`. */
function senderPiece(
  senderId: number,
  viewer: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'stringId'>,
  host: string,
  lookups: PresentLookups,
  options: PresentOptions,
): string {
  const sender = lookups.userById.get(senderId)!;
  const emailVisible = canSeeDeliveryEmail(viewer, sender);
  return `"sender_full_name":${JSON.stringify(sender.fullName)},"sender_email":${JSON.stringify(apiEmail(sender, host))},"sender_realm_str":${JSON.stringify(realm.stringId)},"avatar_url":${JSON.stringify(avatarUrl(sender, options.clientGravatar, emailVisible))}`;
}

/** A message's conversation fields, from `display_recipient` to `stream_id` (channels only). */
function conversationPiece(m: PresentedMessage, host: string, lookups: PresentLookups): string {
  if (m.streamId !== null)
    return `"display_recipient":${JSON.stringify(lookups.streamName.get(m.streamId) ?? '')},"recipient_id":${m.streamId},"stream_id":${m.streamId}`;
  const recipients = dmParticipants(m.dmKey).map((id) => {
    const u = lookups.userById.get(id)!;
    return { id: u.id, email: apiEmail(u, host), full_name: u.fullName, is_mirror_dummy: false };
  });
  return `"display_recipient":${JSON.stringify(recipients)},"recipient_id":${recipientId(m)}`;
}

/** One message object as JSON, the pieces shared with other messages taken from `pieces`. */
function messageText(
  m: PresentedMessage,
  viewer: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'stringId'>,
  host: string,
  lookups: PresentLookups,
  flags: readonly string[],
  options: PresentOptions,
  historyPolicy: string,
  pieces: Pieces,
): string {
  let sender = pieces.sender.get(m.senderId);
  if (sender === undefined) {
    sender = senderPiece(m.senderId, viewer, realm, host, lookups, options);
    pieces.sender.set(m.senderId, sender);
  }
  const key = m.streamId ?? m.dmKey ?? '';
  let conversation = pieces.conversation.get(key);
  if (conversation === undefined) {
    conversation = conversationPiece(m, host, lookups);
    pieces.conversation.set(key, conversation);
  }
  const stream = m.streamId !== null;
  const content = options.applyMarkdown
    ? `${JSON.stringify(m.renderedContent)},"content_type":"text/html"`
    : `${JSON.stringify(m.content)},"content_type":"text/x-markdown"`;
  const reactions = lookups.reactionsOf.get(m.id);
  const history = visibleEditHistory(m.editHistory, historyPolicy);
  let text = `{"id":${m.id},"sender_id":${m.senderId},${sender},"content":${content},"client":${JSON.stringify(m.sendingClient)},${conversation},"subject":${stream ? JSON.stringify(displayTopic(m.topic, options.allowEmptyTopicName)) : '""'},"topic_links":[],"is_me_message":${m.isMeMessage},"reactions":${reactions ? JSON.stringify(reactions) : '[]'},"submessages":[],"timestamp":${Math.floor(m.dateSent.getTime() / 1000)},"type":${stream ? '"stream"' : '"private"'},"flags":${flagsText(flags)}`;
  if (history) text += `,"edit_history":${JSON.stringify(history)}`;
  if (m.lastEditTime)
    text += `,"last_edit_timestamp":${Math.floor(m.lastEditTime.getTime() / 1000)}`;
  if (m.lastMovedTime)
    text += `,"last_moved_timestamp":${Math.floor(m.lastMovedTime.getTime() / 1000)}`;
  return `${text}}`;
}

/**
 * The JSON list of the API objects of `messages` for `viewer`, in the given
 * order, from lookups already made: the text JSON.stringify would make of
 * presentMessage's objects, with `extra`'s fields (search matches) last.
 */
export function messagesJson(
  messages: PresentedMessage[],
  viewer: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'stringId' | 'messageEditHistoryVisibilityPolicy'>,
  host: string,
  lookups: PresentLookups,
  flags: Map<number, readonly string[]>,
  options: PresentOptions,
  extra: Map<number, SearchMatch>,
): string {
  const historyPolicy = editHistoryPolicies[realm.messageEditHistoryVisibilityPolicy] ?? 'all';
  const pieces: Pieces = { sender: new Map(), conversation: new Map() };
  const texts: string[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const flagsOf = flags.get(m.id) ?? NO_ROW_FLAGS;
    const text = messageText(
      m,
      viewer,
      realm,
      host,
      lookups,
      flagsOf,
      options,
      historyPolicy,
      pieces,
    );
    const more = extra.get(m.id);
    const moreText = more ? JSON.stringify(more) : '{}';
    texts[i] = moreText.length > 2 ? `${text.slice(0, -1)},${moreText.slice(1)}` : text;
  }
  return `[${texts.join(',')}]`;
}

/**
 * presentMessages as JSON text: the lookups (but the names of the channels
 * in `streamNames`, already known), then the list of message objects.
 */
export async function presentMessagesJson(
  db: Db,
  viewer: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'stringId' | 'messageEditHistoryVisibilityPolicy'>,
  host: string,
  messages: PresentedMessage[],
  flags: Map<number, readonly string[]>,
  options: PresentOptions,
  extra: Map<number, SearchMatch>,
  streamNames: ReadonlyMap<number, string>,
): Promise<string> {
  if (messages.length === 0) return '[]';
  const lookups = await loadLookups(db, messages, streamNames);
  return messagesJson(messages, viewer, realm, host, lookups, flags, options, extra);
}

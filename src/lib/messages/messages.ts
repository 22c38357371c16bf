// Messages as the API shows them (the message object of GET /messages and of
// message events), built field by field for one viewer, with every lookup
// (senders, channels, participants, reactions) done once per batch.
import {
  Prisma,
  type Message,
  type Reaction,
  type Realm,
  type User,
} from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { editHistoryPolicies } from '../realm/realm';
import { displayTopic } from '../channels/topics';
import { flagList } from './flags';
import { apiEmail, avatarUrl, canSeeDeliveryEmail } from '../users/users';
import type { components } from '../../../generated/api';

/** The message object of the API. */
export type MessageObject = components['schemas']['Message'];

/** One reaction as a message object shows it. */
type ReactionObject = components['schemas']['Reaction'];

/** One entry of a message's edit history. */
type EditHistoryEntry = components['schemas']['MessageEditHistoryEntry'];

/** Fields a search adds to a message object: the highlighted matches. */
export type SearchMatch = Pick<MessageObject, 'match_content' | 'match_subject'>;

/** How the viewer asked for messages. */
export interface PresentOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

/** The columns of a message that its API object shows. */
export type PresentedMessage = Pick<
  Message,
  | 'id'
  | 'senderId'
  | 'streamId'
  | 'dmKey'
  | 'topic'
  | 'content'
  | 'renderedContent'
  | 'dateSent'
  | 'lastEditTime'
  | 'lastMovedTime'
  | 'editHistory'
  | 'sendingClient'
  | 'isMeMessage'
>;

/** The participants of a direct message, from its key. */
export function dmParticipants(dmKey: string | null): number[] {
  return dmKey ? dmKey.split(',').map(Number) : [];
}

/** A stable number naming a message's conversation: the channel ID, or a hash of the participants. */
export function recipientId(message: Pick<Message, 'streamId' | 'dmKey'>): number {
  if (message.streamId !== null) return message.streamId;
  let hash = 2166136261;
  for (const ch of message.dmKey ?? '') hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0;
  return 1_000_000_000 + (hash % 1_000_000_000);
}

/** The parts of a user a message object shows. */
export type Person = Pick<
  User,
  | 'id'
  | 'email'
  | 'fullName'
  | 'isBot'
  | 'emailAddressVisibility'
  | 'avatarSource'
  | 'avatarVersion'
  | 'avatarHash'
  | 'realmId'
>;

/** Edit history filtered by the organization's visibility policy, or undefined when hidden. */
export function visibleEditHistory(
  raw: string | null,
  policy: string,
): EditHistoryEntry[] | undefined {
  if (!raw || policy === 'none') return undefined;
  const entries = JSON.parse(raw) as EditHistoryEntry[];
  if (policy === 'all') return entries;
  return entries
    .filter((e) => 'prev_topic' in e || 'prev_stream' in e)
    .map((e) => {
      const moved = { ...e };
      delete moved.prev_content;
      delete moved.prev_rendered_content;
      delete moved.prev_rendered_content_version;
      return moved;
    });
}

/** What presenting messages looks up: people, channel names and reactions. */
export interface PresentLookups {
  userById: Map<number, Person>;
  streamName: Map<number, string>;
  reactionsOf: Map<number, ReactionObject[]>;
}

/**
 * Reads the lookups that presenting `messages` needs, in three queries at
 * most: the names of channels in `streamNames` (those a narrow named) are
 * not read again.
 */
export async function loadLookups(
  db: Db,
  messages: PresentedMessage[],
  streamNames: ReadonlyMap<number, string> = new Map(),
): Promise<PresentLookups> {
  const people = new Set<number>();
  const streamIds = new Set<number>();
  for (const m of messages) {
    people.add(m.senderId);
    if (m.streamId !== null && !streamNames.has(m.streamId)) streamIds.add(m.streamId);
    if (m.dmKey !== null) for (const id of dmParticipants(m.dmKey)) people.add(id);
  }
  // Raw queries: this runs on every message fetch, and Prisma's query building
  // costs more than these lookups by primary key.
  const none = Prisma.sql`(NULL)`;
  const list = (ids: Iterable<number>) => {
    const all = [...ids];
    return all.length ? Prisma.sql`(${Prisma.join(all)})` : none;
  };
  const [users, streams, reactions] = await Promise.all([
    queryRows<Person>(
      db,
      Prisma.sql`SELECT "id", "email", "fullName", "isBot", "emailAddressVisibility", "avatarSource", "avatarVersion", "avatarHash", "realmId" FROM "User" WHERE "id" IN ${list(people)}`,
    ),
    streamIds.size
      ? queryRows<{ id: number; name: string }>(
          db,
          Prisma.sql`SELECT "id", "name" FROM "Stream" WHERE "id" IN ${list(streamIds)}`,
        )
      : [],
    queryRows<Reaction>(
      db,
      Prisma.sql`SELECT * FROM "Reaction" WHERE "messageId" IN ${list(messages.map((m) => m.id))} ORDER BY "id"`,
    ),
  ]);
  const reactionsOf = new Map<number, ReactionObject[]>();
  for (const r of reactions) {
    const list = reactionsOf.get(r.messageId) ?? [];
    list.push({
      emoji_name: r.emojiName,
      emoji_code: r.emojiCode,
      reaction_type: r.reactionType as ReactionObject['reaction_type'],
      user_id: r.userId,
    });
    reactionsOf.set(r.messageId, list);
  }
  return {
    userById: new Map(users.map((u) => [u.id, u])),
    streamName: new Map([...streamNames, ...streams.map((s): [number, string] => [s.id, s.name])]),
    reactionsOf,
  };
}

/** The API object of one message for `viewer`, from lookups already made. */
export function presentMessage(
  m: PresentedMessage,
  viewer: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'stringId' | 'messageEditHistoryVisibilityPolicy'>,
  host: string,
  lookups: PresentLookups,
  flags: string[],
  options: PresentOptions,
): MessageObject {
  const sender = lookups.userById.get(m.senderId)!;
  const emailVisible = canSeeDeliveryEmail(viewer, sender);
  const displayRecipient =
    m.streamId !== null
      ? (lookups.streamName.get(m.streamId) ?? '')
      : dmParticipants(m.dmKey).map((id) => {
          const u = lookups.userById.get(id)!;
          return {
            id: u.id,
            email: apiEmail(u, host),
            full_name: u.fullName,
            is_mirror_dummy: false,
          };
        });
  const history = visibleEditHistory(
    m.editHistory,
    editHistoryPolicies[realm.messageEditHistoryVisibilityPolicy] ?? 'all',
  );
  return {
    id: m.id,
    sender_id: m.senderId,
    sender_full_name: sender.fullName,
    sender_email: apiEmail(sender, host),
    sender_realm_str: realm.stringId,
    avatar_url: avatarUrl(sender, options.clientGravatar, emailVisible),
    content: options.applyMarkdown ? m.renderedContent : m.content,
    content_type: options.applyMarkdown ? 'text/html' : 'text/x-markdown',
    client: m.sendingClient,
    display_recipient: displayRecipient,
    recipient_id: recipientId(m),
    ...(m.streamId !== null ? { stream_id: m.streamId } : {}),
    subject: m.streamId !== null ? displayTopic(m.topic, options.allowEmptyTopicName) : '',
    topic_links: [],
    is_me_message: m.isMeMessage,
    reactions: lookups.reactionsOf.get(m.id) ?? [],
    submessages: [],
    timestamp: Math.floor(m.dateSent.getTime() / 1000),
    type: m.streamId !== null ? 'stream' : 'private',
    flags,
    ...(history ? { edit_history: history } : {}),
    ...(m.lastEditTime ? { last_edit_timestamp: Math.floor(m.lastEditTime.getTime() / 1000) } : {}),
    ...(m.lastMovedTime
      ? { last_moved_timestamp: Math.floor(m.lastMovedTime.getTime() / 1000) }
      : {}),
  };
}

/**
 * The API objects of `messages` for `viewer`, in the given order. `flags`
 * holds the viewer's flags by message ID; `extra` adds fields (search matches).
 */
export async function presentMessages(
  db: Db,
  viewer: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'stringId' | 'messageEditHistoryVisibilityPolicy'>,
  host: string,
  messages: PresentedMessage[],
  flags: Map<number, string[]>,
  options: PresentOptions,
  extra: Map<number, SearchMatch> = new Map(),
): Promise<MessageObject[]> {
  if (messages.length === 0) return [];
  const lookups = await loadLookups(db, messages);
  return messages.map((m) => {
    const presented = presentMessage(
      m,
      viewer,
      realm,
      host,
      lookups,
      flags.get(m.id) ?? flagList(null),
      options,
    );
    const more = extra.get(m.id);
    return more ? Object.assign(presented, more) : presented;
  });
}

/** The highest message ID `userId` has received, or -1. */
export async function maxMessageId(db: Db, userId: number): Promise<number> {
  const [row] = await queryRows<{ id: number | bigint | null }>(
    db,
    Prisma.sql`SELECT MAX("messageId") AS "id" FROM "UserMessage" WHERE "userId" = ${userId}`,
  );
  return row?.id === null || row?.id === undefined ? -1 : Number(row.id);
}

// Sending messages. A sent message gets one UserMessage row per recipient
// (created in one statement) carrying that recipient's flags; after the
// commit each recipient's queues get a message event with their flags.
// Changing flags afterwards is message-flags.ts.
import { announceGainedAccess, viewsBefore } from '../users/user-access';
import { Role } from '../../lib/constants';
import { checkSenderCanAccessRecipients } from '../../lib/users/user-access';
import {
  Prisma,
  type Message,
  type Realm,
  type User,
} from '../../../generated/prisma/sqlite/client';
import { executeRows, queryRows, type Db, type OnCommit } from '../../db/client';
import { renderMarkdown, type RenderResult } from '../../lib/markdown';
import {
  isMeMessage,
  mutersAndAlerted,
  normalizeContent,
  resolveAddressee,
  type Addressee,
} from '../../lib/messages/message-send';
import { flagList } from '../../lib/messages/flags';
import { checkMentions } from '../../lib/messages/mentions';
import { presentMessage, type PresentLookups } from '../../lib/messages/messages';
import { dmKeyOf } from '../../lib/narrow/narrow';
import type { MessageEventBody, MessageFacts } from '../../events/queues';
import { buildRenderContext } from '../../lib/markdown/render-context';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { realmHost, apiEmail, avatarUrl } from '../../lib/users/users';
import { SystemBot } from '../../lib/users/bots';
import { welcomeBotAnswer } from '../../lib/users/welcome';
import { membersOfGroups } from '../../lib/groups/permissions';
import { VisibilityPolicy } from '../../lib/users/user-topics';
import type { Services } from '../../services';
import type { SentMessage } from '../../lib/messages/sent';
import {
  dispatchOutgoingWebhooks,
  serviceCalls,
  type WebhookMessage,
} from '../webhooks/outgoing-webhooks';
import { publishAttachmentUpdates } from '../uploads/uploads';

/** What POST /messages asks. */
export interface SendRequest {
  type: string;
  to: unknown;
  topic?: string;
  content: string;
  readBySender?: boolean;
  localId?: string;
  client?: string;
  /** The original time of a forged message (senders holding can_forge_sender only). */
  forgedTime?: Date;
  /** Sent by the server itself (Notification Bot), which may post wherever it needs to. */
  byServer?: boolean;
}

/** Recipients and their flags for a new message. */
type Delivery = Pick<SentMessage, 'userIds' | 'flagsOf' | 'mutedFor' | 'followedBy'>;

/**
 * Who holds the message muted and who follows its topic, from the topic
 * preferences of its channel and topic and the subscribers who muted the
 * channel (`channelMutedBy`): a muted topic is muted, and so is a topic of a
 * muted channel unless the user unmuted or follows it.
 */
async function topicMuting(
  db: Db,
  streamId: number,
  topic: string,
  channelMutedBy: number[],
): Promise<{ mutedFor: number[]; followedBy: number[] }> {
  const rows = await queryRows<{ userId: number | bigint; visibilityPolicy: number | bigint }>(
    db,
    Prisma.sql`
    SELECT "userId", "visibilityPolicy" FROM "UserTopic"
    WHERE "streamId" = ${streamId} AND "topicLower" = ${topic.toLowerCase()}`,
  );
  const policy = new Map(rows.map((r) => [Number(r.userId), Number(r.visibilityPolicy)]));
  const mutedFor = new Set(channelMutedBy);
  for (const [userId, p] of policy) {
    if (p === VisibilityPolicy.MUTED) mutedFor.add(userId);
    else if (p === VisibilityPolicy.UNMUTED || p === VisibilityPolicy.FOLLOWED)
      mutedFor.delete(userId);
  }
  const followedBy = [...policy].filter(([, p]) => p === VisibilityPolicy.FOLLOWED);
  return { mutedFor: [...mutedFor], followedBy: followedBy.map(([userId]) => userId) };
}

/** Works out who receives the message and with which flags, checking wildcard permissions. */
async function plan(
  db: Db,
  access: ChannelAccess,
  realm: Realm,
  sender: User,
  to: Addressee,
  rendered: RenderResult,
  content: string,
  readBySender: boolean,
): Promise<Delivery> {
  let userIds: number[];
  let muting = { mutedFor: [] as number[], followedBy: [] as number[] };
  if (to.kind === 'stream') {
    const subs = await queryRows<{ userId: number | bigint; isMuted: boolean | number }>(
      db,
      Prisma.sql`
      SELECT s."userId" AS "userId", s."isMuted" AS "isMuted" FROM "Subscription" s JOIN "User" u ON u."id" = s."userId"
      WHERE s."streamId" = ${to.stream.id} AND s."active" = true AND u."isActive" = true`,
    );
    userIds = subs.map((s) => Number(s.userId));
    muting = await topicMuting(
      db,
      to.stream.id,
      to.topic,
      subs.filter((s) => Boolean(s.isMuted)).map((s) => Number(s.userId)),
    );
  } else {
    userIds = to.recipients.map((u) => u.id);
  }
  const scope =
    to.kind === 'stream'
      ? {
          streamId: to.stream.id,
          topicLower: to.topic.toLowerCase(),
          subscriberCount: userIds.length,
        }
      : null;
  const participants = await checkMentions(db, access, realm, rendered, scope);
  const groupMembers =
    rendered.mentionedGroupIds.size > 0
      ? await membersOfGroups(db, [...rendered.mentionedGroupIds])
      : [];
  const mentioned = new Set([...rendered.mentionedUserIds, ...groupMembers]);
  if (!userIds.includes(sender.id)) userIds.push(sender.id);
  // As in Zulip: messages from a muted sender arrive read, and alert words
  // are looked for in the Markdown source.
  const { muters, alerted } = await mutersAndAlerted(db, realm.id, sender.id, userIds, content);
  return {
    userIds,
    ...muting,
    flagsOf: (userId) => ({
      read: (userId === sender.id && readBySender) || muters.has(userId),
      mentioned: mentioned.has(userId),
      streamWildcardMentioned: rendered.streamWildcard,
      topicWildcardMentioned:
        rendered.topicWildcard && (participants === null || participants.has(userId)),
      hasAlertWord: alerted.has(userId),
    }),
  };
}

/** Sends a message; returns its ID. */
export async function doSendMessage(
  services: Services,
  realm: Realm,
  sender: User,
  request: SendRequest,
): Promise<number> {
  return services.db.write((tx, onCommit) =>
    sendMessageIn(tx, onCommit, services, realm, sender, request),
  );
}

/**
 * Sends a message inside an open transaction (so that a caller can make the
 * send part of a larger change, as scheduled-message delivery does); returns
 * its ID. Events go out when that transaction commits.
 */
export async function sendMessageIn(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  sender: User,
  request: SendRequest,
): Promise<number> {
  const content = normalizeContent(request.content);
  const host = realmHost(realm, services.config.externalUrl);
  const access = new ChannelAccess(tx, sender);
  const to = await resolveAddressee(
    tx,
    access,
    realm,
    request.type,
    request.to,
    request.topic,
    request.byServer,
  );
  const rendered = renderMarkdown(
    content,
    await buildRenderContext(tx, realm, content, services.config.externalUrl),
  );
  const delivery = await plan(
    tx,
    access,
    realm,
    sender,
    to,
    rendered,
    content,
    request.readBySender ?? false,
  );
  // A direct message with a guest may let them see users a restricted organization hid.
  const guestsIn = to.kind === 'dm' ? [...to.recipients, sender].filter(isGuest) : [];
  if (to.kind === 'dm') await checkSenderCanAccessRecipients(tx, realm, sender, to.recipients);
  const views = guestsIn.length
    ? await viewsBefore(
        tx,
        realm.id,
        guestsIn.map((u) => u.id),
      )
    : null;
  const message = await storeMessage(tx, realm, sender, to, content, rendered, request);
  if (views) await announceGainedAccess(tx, onCommit, services, realm.id, views);
  await insertUserMessages(tx, message.id, to.kind === 'dm', delivery);
  if (to.kind === 'stream' && to.stream.firstMessageId === null) {
    await executeRows(
      tx,
      Prisma.sql`UPDATE "Stream" SET "firstMessageId" = ${message.id} WHERE "id" = ${to.stream.id} AND "firstMessageId" IS NULL`,
    );
  }
  if (rendered.uploadPathIds.length > 0) {
    const claimed = await claimAttachments(tx, sender, message, rendered.uploadPathIds);
    await publishAttachmentUpdates(tx, onCommit, services, claimed);
  }
  // Everything the message object names is at hand: no queries needed.
  const people = to.kind === 'dm' ? [...to.recipients, sender] : [sender];
  const lookups: PresentLookups = {
    userById: new Map(people.map((u) => [u.id, u])),
    streamName: new Map(to.kind === 'stream' ? [[to.stream.id, to.stream.name]] : []),
    reactionsOf: new Map(),
  };
  const { flags: _flags, ...presented } = presentMessage(
    message,
    sender,
    realm,
    host,
    lookups,
    [],
    { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: false },
  );
  // The event carries the contract's Message object without flags.
  const body: MessageEventBody['message'] = presented;
  const facts = messageFacts(message, sender, to, host, delivery);
  const publicChannel = to.kind === 'stream' && !to.stream.inviteOnly ? realm.id : null;
  onCommit(() =>
    publishMessage(services, body, facts, delivery, sender.id, request.localId, publicChannel),
  );
  const sent: SentMessage = {
    realm,
    sender,
    message,
    to,
    body,
    host,
    mentionedUserIds: rendered.mentionedUserIds,
    ...delivery,
  };
  onCommit(() => services.messageSent.announce(sent));
  return message.id;
}

/** Welcome Bot answers a person who writes to it alone, as in Zulip. */
export async function doAnswerAsWelcomeBot(services: Services, sent: SentMessage): Promise<void> {
  const { sender, to, realm } = sent;
  if (sender.isBot || to.kind !== 'dm') return;
  const others = to.recipients.filter((u) => u.id !== sender.id);
  const bot = others[0];
  if (others.length !== 1 || !bot.isBot || bot.emailLower !== SystemBot.welcome.email) return;
  await doSendMessage(services, realm, bot, {
    type: 'private',
    to: [sender.id],
    content: welcomeBotAnswer(sent.message.content),
    byServer: true,
  });
}

/** Calls the outgoing-webhook bots a sent message triggers, sending their replies. */
export async function doCallOutgoingWebhooks(services: Services, sent: SentMessage): Promise<void> {
  const { realm, sender, to, body } = sent;
  const calls = await services.db.read((db) =>
    serviceCalls(db, sender, to, sent.mentionedUserIds, sent.userIds),
  );
  if (calls.length === 0) return;
  const payload: WebhookMessage = {
    ...body,
    content: sent.message.content,
    rendered_content: body.content,
  };
  dispatchOutgoingWebhooks(services, realm, sent.host, payload, calls, (bot, reply) =>
    doSendMessage(services, realm, bot, { ...reply, client: 'OutgoingWebhookResponse' }),
  );
}

const isGuest = (u: User) => u.role === Role.GUEST;

/** Inserts the message row, and returns it as a model row. */
async function storeMessage(
  tx: Db,
  realm: Realm,
  sender: User,
  to: Addressee,
  content: string,
  rendered: RenderResult,
  request: SendRequest,
): Promise<Message> {
  const topic = to.kind === 'stream' ? to.topic : '';
  const fields = {
    realmId: realm.id,
    senderId: sender.id,
    streamId: to.kind === 'stream' ? to.stream.id : null,
    dmKey: to.kind === 'dm' ? dmKeyOf([...to.recipients.map((u) => u.id), sender.id]) : null,
    topic,
    topicLower: topic.toLowerCase(),
    content,
    renderedContent: rendered.html,
    dateSent: request.forgedTime ?? new Date(),
    sendingClient: request.client ?? 'API',
    hasAttachment: rendered.hasAttachment,
    hasImage: rendered.hasImage,
    hasLink: rendered.hasLink,
    isMeMessage: isMeMessage(content),
  };
  return {
    id: await insertMessage(tx, fields),
    ...fields,
    lastEditTime: null,
    lastMovedTime: null,
    editHistory: null,
  };
}

/** Inserts the message row and returns its ID (one statement; the search index follows by trigger). */
async function insertMessage(
  tx: Db,
  f: Omit<Message, 'id' | 'lastEditTime' | 'lastMovedTime' | 'editHistory'>,
): Promise<number> {
  const rows = await queryRows<{ id: number | bigint }>(
    tx,
    Prisma.sql`
    INSERT INTO "Message" ("realmId", "senderId", "streamId", "dmKey", "topic", "topicLower", "content", "renderedContent", "dateSent", "sendingClient", "hasAttachment", "hasImage", "hasLink", "isMeMessage")
    VALUES (${f.realmId}, ${f.senderId}, ${f.streamId}, ${f.dmKey}, ${f.topic}, ${f.topicLower}, ${f.content}, ${f.renderedContent}, ${f.dateSent}, ${f.sendingClient}, ${f.hasAttachment}, ${f.hasImage}, ${f.hasLink}, ${f.isMeMessage})
    RETURNING "id"`,
  );
  return Number(rows[0].id);
}

/** The narrow-matching facts of a new message. */
function messageFacts(
  message: Message,
  sender: User,
  to: Addressee,
  host: string,
  delivery: Pick<Delivery, 'mutedFor' | 'followedBy'>,
): MessageFacts {
  const people =
    to.kind === 'dm'
      ? [...new Map([...to.recipients, sender].map((u) => [u.id, u])).values()].sort(
          (a, b) => a.id - b.id,
        )
      : [];
  return {
    senderId: sender.id,
    senderEmail: sender.emailLower,
    streamId: message.streamId,
    streamName: to.kind === 'stream' ? to.stream.name : '',
    topic: message.topic,
    dmUserIds: people.map((u) => u.id),
    dmEmails: people.map((u) => u.emailLower),
    rawContent: message.content,
    renderedContent: message.renderedContent,
    hasLink: message.hasLink,
    hasImage: message.hasImage,
    hasAttachment: message.hasAttachment,
    gravatarAvatarUrl: avatarUrl(sender, true, apiEmail(sender, host) === sender.email),
    mutedFor: delivery.mutedFor,
    followedBy: delivery.followedBy,
  };
}

/**
 * Publishes the message event, one publication per distinct set of flags; a
 * public channel's message also goes, without flags, to the organization's
 * queues registered with all_public_streams (`publicChannelRealmId`).
 */
function publishMessage(
  services: Services,
  message: MessageEventBody['message'],
  facts: MessageFacts,
  delivery: Delivery,
  senderId: number,
  localId: string | undefined,
  publicChannelRealmId: number | null,
): void {
  const groups = new Map<string, { flags: string[]; userIds: number[] }>();
  for (const userId of delivery.userIds) {
    const flags = flagList(delivery.flagsOf(userId));
    const key = userId === senderId ? `sender:${flags.join(',')}` : flags.join(',');
    const group = groups.get(key) ?? { flags, userIds: [] };
    group.userIds.push(userId);
    groups.set(key, group);
  }
  for (const [key, { flags, userIds }] of groups) {
    const event: MessageEventBody = {
      type: 'message',
      message,
      flags,
      ...(key.startsWith('sender:') && localId !== undefined ? { local_message_id: localId } : {}),
    };
    services.bus.publishMessage(event, userIds, facts);
  }
  if (publicChannelRealmId !== null) {
    services.bus.publishToPublicChannelQueues(
      publicChannelRealmId,
      { type: 'message', message, flags: [] },
      delivery.userIds,
      facts,
    );
  }
}

/** Links the sender's uploaded files named in the message to it; returns their IDs. */
async function claimAttachments(
  tx: Db,
  sender: User,
  message: Message,
  pathIds: string[],
): Promise<number[]> {
  const owned = await tx.attachment.findMany({
    where: { pathId: { in: pathIds }, ownerId: sender.id },
    select: { id: true },
  });
  if (owned.length > 0)
    await tx.attachmentMessage.createMany({
      data: owned.map((a) => ({ attachmentId: a.id, messageId: message.id })),
    });
  return owned.map((a) => a.id);
}

/** Inserts the recipients' rows in one statement (Prisma's createMany is slow on SQLite). */
async function insertUserMessages(
  tx: Db,
  messageId: number,
  isPrivate: boolean,
  delivery: Delivery,
): Promise<void> {
  const rows = delivery.userIds.map((userId) => {
    const f = delivery.flagsOf(userId);
    return Prisma.sql`(${userId}, ${messageId}, ${f.read}, ${f.mentioned}, ${f.streamWildcardMentioned}, ${f.topicWildcardMentioned}, ${f.hasAlertWord}, ${isPrivate})`;
  });
  await executeRows(
    tx,
    Prisma.sql`INSERT INTO "UserMessage" ("userId", "messageId", "read", "mentioned", "streamWildcardMentioned", "topicWildcardMentioned", "hasAlertWord", "isPrivate") VALUES ${Prisma.join(rows)}`,
  );
}

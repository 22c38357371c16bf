// Incoming webhooks: an integration's messages, posted by a bot to a channel
// or to its owner, and, when the channel it names does not exist, a notice to
// the owner in its place (as Zulip does, the request itself succeeds).
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { eventWanted, type IntegrationMessage } from '../../lib/webhooks/integrations';
import type { Services } from '../../services';
import { doSendMessage } from '../messages/messages';

/** The least time between two notices to a bot's owner, as in Zulip. */
export const BOT_OWNER_NOTICE_INTERVAL_MS = 5 * 60 * 1000;

/** Where and what an integration posts. */
export interface WebhookMessage {
  /** A channel name or ID (decimal digits); undefined for a direct message to the bot's owner. */
  stream?: string;
  topic: string;
  content: string;
  /** The sending client's name (`ZulipJSONWebhook`, ...). */
  client: string;
}

/**
 * Posts an integration's message as `bot`: to the channel it names, or as a
 * direct message to its owner (to itself, for a sender without an owner).
 * Returns the message's ID, or null when the channel does not exist, in which
 * case the owner has been told (at most once every five minutes).
 */
export async function doSendWebhookMessage(
  services: Services,
  realm: Realm,
  bot: User,
  message: WebhookMessage,
): Promise<number | null> {
  if (message.stream === undefined)
    return doSendMessage(services, realm, bot, {
      type: 'direct',
      to: [bot.botOwnerId ?? bot.id],
      content: message.content,
      client: message.client,
    });
  const channel = /^\d+$/.test(message.stream) ? Number(message.stream) : message.stream;
  try {
    return await doSendMessage(services, realm, bot, {
      type: 'stream',
      to: channel,
      topic: message.topic,
      content: message.content,
      client: message.client,
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'STREAM_DOES_NOT_EXIST') throw error;
    await doNoticeBotOwner(services, realm, bot, missingChannelNotice(bot, channel));
    return null;
  }
}

/** What the owner of a bot that posted to a channel that does not exist is told. */
function missingChannelNotice(bot: User, channel: string | number): string {
  const who = `Your bot \`${bot.email}\``;
  return typeof channel === 'number'
    ? `${who} tried to post to the channel with ID ${channel}, but no channel has that ID.`
    : `${who} tried to post to the channel #**${channel}**, which does not exist. You can [create it](#channels/new), or change the address the integration posts to.`;
}

/**
 * Sends `content` to the owner of `bot` as a direct message from the bot (this
 * server has no notification bot), unless the owner was told something in the
 * last five minutes. A bot without an owner, or a user, has no one to tell.
 */
export async function doNoticeBotOwner(
  services: Services,
  realm: Realm,
  bot: User,
  content: string,
): Promise<void> {
  if (!bot.isBot || bot.botOwnerId === null) return;
  const now = new Date();
  // Claimed in one statement, so that two processes never both send one.
  const claimed = await services.db.write((tx) =>
    tx.user.updateMany({
      where: {
        id: bot.id,
        OR: [
          { botOwnerNoticeAt: null },
          { botOwnerNoticeAt: { lt: new Date(now.getTime() - BOT_OWNER_NOTICE_INTERVAL_MS) } },
        ],
      },
      data: { botOwnerNoticeAt: now },
    }),
  );
  if (claimed.count === 0) return;
  await doSendMessage(services, realm, bot, {
    type: 'direct',
    to: [bot.botOwnerId],
    content,
    client: 'Internal',
  });
}

/** Where an integration posts, and which of its events it posts, from its URL. */
export interface IntegrationTarget {
  /** A channel name or ID; undefined for direct messages to the bot's owner. */
  stream?: string;
  /** The URL's topic, which replaces the topics the integration picks. */
  topic?: string;
  /** Shell-style patterns: only matching events are posted. */
  onlyEvents?: string[];
  /** Shell-style patterns: matching events are not posted. */
  excludeEvents?: string[];
  /** The sending client's name (`ZulipGitHubWebhook`, ...). */
  client: string;
}

/**
 * Posts the messages an integration made of one payload, in order, leaving
 * out the events the URL filters out. Every message was built (and so the
 * payload checked) before the first is posted.
 */
export async function doPostIntegrationMessages(
  services: Services,
  realm: Realm,
  bot: User,
  target: IntegrationTarget,
  messages: IntegrationMessage[],
): Promise<void> {
  for (const message of messages) {
    if (!eventWanted(message.event, target.onlyEvents, target.excludeEvents)) continue;
    await doSendWebhookMessage(services, realm, bot, {
      stream: target.stream,
      topic: target.topic ?? message.topic,
      content: message.content,
      client: target.client,
    });
  }
}

/**
 * Tells the owner of `bot` that a request reached `path` without the header
 * in which `service` names its events: most likely the URL of another
 * integration was given to the service. At most once every five minutes.
 */
export async function doNoticeMissingEventHeader(
  services: Services,
  realm: Realm,
  bot: User,
  details: { path: string; header: string; service: string },
): Promise<void> {
  await doNoticeBotOwner(
    services,
    realm,
    bot,
    `Your bot \`${bot.email}\` received a request at \`${details.path}\` without the ` +
      `\`${details.header}\` header, in which ${details.service} names the event. ` +
      `This usually means that the service was given the URL of another integration, or is ` +
      `a version that does not send that header.`,
  );
}

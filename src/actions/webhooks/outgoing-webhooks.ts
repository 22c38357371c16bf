// Outgoing webhooks: when a message mentions an outgoing webhook bot that
// receives it, or is a direct message to one, the server posts the message to
// the bot's endpoint once the message is committed, and posts the endpoint's
// answer back as the bot's reply in the same conversation. Zulip's payload
// (interface 1) is JSON; Slack's (interface 2) is a form, for channel messages
// only. An endpoint that cannot be reached, or answers with an error status,
// is tried three times; then the bot's owner gets a direct message from the
// bot saying what went wrong.
import { Prisma, type Realm, type User } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import type { Addressee } from '../../lib/messages/message-send';
import type { MessageEventBody } from '../../events/queues';
import { BotInterface, BotType } from '../../lib/users/bots';
import type { Services } from '../../services';

/** Why a bot is called: it was mentioned, or sent a direct message. */
export type Trigger = 'mention' | 'direct_message';

/** One bot to call about a message. */
export interface ServiceCall {
  bot: User;
  trigger: Trigger;
  baseUrl: string;
  interface: number;
  token: string;
}

/** How many times an endpoint is tried before the owner is told. */
const ATTEMPTS = 3;
/** How long one attempt may take. */
const TIMEOUT_MS = 10_000;

/**
 * The outgoing webhook bots a new message calls: direct-message recipients,
 * and mentioned bots among a channel message's recipients. A bot's own
 * messages call nobody, so that two bots cannot answer each other forever.
 */
export async function serviceCalls(
  tx: Db,
  sender: User,
  to: Addressee,
  mentionedUserIds: Set<number>,
  recipientIds: number[],
): Promise<ServiceCall[]> {
  if (sender.isBot && sender.botType === BotType.OUTGOING_WEBHOOK) return [];
  let bots: { bot: User; trigger: Trigger }[];
  if (to.kind === 'dm') {
    bots = to.recipients
      .filter((u) => u.isBot && u.isActive && u.botType === BotType.OUTGOING_WEBHOOK)
      .map((bot) => ({ bot, trigger: 'direct_message' }));
  } else {
    const candidates = [...mentionedUserIds].filter(
      (id) => id !== sender.id && recipientIds.includes(id),
    );
    if (candidates.length === 0) return [];
    // Most mentions name people: a prepared statement answers whether any
    // candidate is such a bot before their whole rows are read.
    const any = await queryRows<{ id: number }>(
      tx,
      Prisma.sql`SELECT "id" FROM "User" WHERE "id" IN (${Prisma.join(candidates)}) AND "isBot" = true AND "isActive" = true AND "botType" = ${BotType.OUTGOING_WEBHOOK} LIMIT 1`,
    );
    if (any.length === 0) return [];
    const found = await tx.user.findMany({
      where: {
        id: { in: candidates },
        isBot: true,
        isActive: true,
        botType: BotType.OUTGOING_WEBHOOK,
      },
    });
    bots = found.map((bot) => ({ bot, trigger: 'mention' }));
  }
  if (bots.length === 0) return [];
  const services = await tx.botService.findMany({
    where: { botId: { in: bots.map((b) => b.bot.id) } },
  });
  return bots.flatMap(({ bot, trigger }) => {
    const service = services.find((s) => s.botId === bot.id);
    return service
      ? [
          {
            bot,
            trigger,
            baseUrl: service.baseUrl,
            interface: service.interface,
            token: service.token,
          },
        ]
      : [];
  });
}

/** The message as the payload carries it: the API's message object with the Markdown source. */
export type WebhookMessage = MessageEventBody['message'] & { rendered_content: string };

/** Sends a reply as `bot` in the conversation of `message`. */
export type Reply = (
  bot: User,
  request: { type: string; to: unknown; topic?: string; content: string },
) => Promise<unknown>;

/** The request body for one call. */
function requestFor(call: ServiceCall, realm: Realm, host: string, message: WebhookMessage) {
  if (call.interface === BotInterface.SLACK) {
    const form = new URLSearchParams({
      token: call.token,
      team_id: realm.stringId,
      team_domain: host,
      channel_id: String(message.stream_id ?? ''),
      channel_name: String(message.display_recipient),
      thread_ts: String(message.timestamp),
      timestamp: String(message.timestamp),
      user_id: String(message.sender_id),
      user_name: message.sender_full_name,
      text: message.content,
      trigger_word: call.trigger,
      service_id: String(call.bot.id),
    });
    return { type: 'application/x-www-form-urlencoded', body: form.toString() };
  }
  return {
    type: 'application/json',
    body: JSON.stringify({
      bot_email: call.bot.email,
      bot_full_name: call.bot.fullName,
      data: message.content,
      message,
      token: call.token,
      trigger: call.trigger,
    }),
  };
}

/** The reply text of an endpoint's answer, or null for none. */
function replyText(call: ServiceCall, answer: unknown): string | null {
  if (!answer || typeof answer !== 'object') return null;
  const fields = answer as Record<string, unknown>;
  if (call.interface === BotInterface.SLACK)
    return typeof fields.text === 'string' && fields.text.trim() ? fields.text : null;
  if (fields.response_not_required === true) return null;
  return typeof fields.content === 'string' && fields.content.trim() ? fields.content : null;
}

/** Where a reply goes: the message's topic, or the direct-message conversation without the bot. */
function replyAddress(message: WebhookMessage, bot: User) {
  if (message.type === 'stream')
    return { type: 'stream', to: message.stream_id, topic: message.subject };
  const people = (message.display_recipient as { id: number }[])
    .map((p) => p.id)
    .filter((id) => id !== bot.id);
  return { type: 'private', to: people.length ? people : [message.sender_id] };
}

/** Calls one bot's endpoint, with retries; returns the parsed answer or throws what went wrong. */
async function call(request: { type: string; body: string }, url: string): Promise<unknown> {
  let problem = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': request.type, 'user-agent': 'ZulipOutgoingWebhook/1.0' },
        body: request.body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await answer.text();
      if (answer.ok) {
        try {
          return text ? JSON.parse(text) : null;
        } catch {
          return null;
        }
      }
      problem = `The endpoint answered with status code ${answer.status}.`;
      // A refusal of the request itself is not worth trying again.
      if (answer.status < 500) break;
    } catch (error) {
      problem = `The endpoint could not be reached (${(error as Error).name}: ${(error as Error).message}).`;
    }
  }
  throw new Error(problem);
}

/**
 * Calls each bot about a committed message, in the background, and posts the
 * answers as replies; never throws.
 */
export function dispatchOutgoingWebhooks(
  services: Services,
  realm: Realm,
  host: string,
  message: WebhookMessage,
  calls: ServiceCall[],
  reply: Reply,
): void {
  for (const target of calls) {
    if (target.interface === BotInterface.SLACK && message.type !== 'stream') continue;
    void (async () => {
      let answer: unknown;
      try {
        answer = await call(requestFor(target, realm, host, message), target.baseUrl);
      } catch (error) {
        services.log.warn('outgoing webhook failed', {
          bot_id: target.bot.id,
          message_id: message.id,
          error: (error as Error).message,
        });
        if (target.bot.botOwnerId !== null)
          await reply(target.bot, {
            type: 'private',
            to: [target.bot.botOwnerId],
            content:
              `Your bot @_**${target.bot.fullName}** was called about message ${message.id} ` +
              `through its outgoing webhook, and the call failed. ${(error as Error).message}`,
          }).catch(() => undefined);
        return;
      }
      const text = replyText(target, answer);
      if (text === null) return;
      await reply(target.bot, { ...replyAddress(message, target.bot), content: text }).catch(
        (error: unknown) =>
          services.log.warn('outgoing webhook reply failed', {
            bot_id: target.bot.id,
            message_id: message.id,
            error: (error as Error).message,
          }),
      );
    })();
  }
}

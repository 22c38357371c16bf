// Bots as their owners and the organization's administrators see them: the
// `realm_bots` state of POST /register, `realm_bot` events and GET /bots.
// Also the rules of who may create and administer a bot, and the checks of a
// bot's names and settings.
import type { BotService, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../constants';
import { apiEmail, avatarUrl } from './users';

/** The kinds of bot (`bot_type`). */
export const BotType = {
  GENERIC: 1,
  INCOMING_WEBHOOK: 2,
  OUTGOING_WEBHOOK: 3,
  EMBEDDED: 4,
} as const;

/**
 * The bots the server speaks through, with Zulip's addresses and names.
 * Notification Bot sends automated messages (message reminders, moderation
 * requests); Welcome Bot greets each new person with a direct message. Zulip
 * shares them across organizations; here each organization gets its own,
 * created the first time it is needed, a bot like any other (listed with the
 * organization's users).
 */
export const SystemBot = {
  notification: { email: 'notification-bot@zulip.com', fullName: 'Notification Bot' },
  welcome: { email: 'welcome-bot@zulip.com', fullName: 'Welcome Bot' },
} as const;

/** The name of one of the server's bots. */
export type SystemBotName = keyof typeof SystemBot;

/** The payload formats of an outgoing webhook (`interface_type`): Zulip's and Slack's. */
export const BotInterface = { GENERIC: 1, SLACK: 2 } as const;

/** What a bot's presentation needs beside its row. */
export interface BotDetails {
  /** Channel names by ID, for the default channels. */
  streamNames: Map<number, string>;
  /** Outgoing-webhook services by bot ID. */
  services: Map<number, BotService>;
}

/** Loads the channel names and services `bots` refer to. */
export async function loadBotDetails(db: Db, bots: User[]): Promise<BotDetails> {
  const streamIds = new Set<number>();
  for (const bot of bots) {
    if (bot.defaultSendingStreamId !== null) streamIds.add(bot.defaultSendingStreamId);
    if (bot.defaultEventsRegisterStreamId !== null)
      streamIds.add(bot.defaultEventsRegisterStreamId);
  }
  const [streams, services] = await Promise.all([
    streamIds.size
      ? db.stream.findMany({
          where: { id: { in: [...streamIds] } },
          select: { id: true, name: true },
        })
      : [],
    bots.length ? db.botService.findMany({ where: { botId: { in: bots.map((b) => b.id) } } }) : [],
  ]);
  return {
    streamNames: new Map(streams.map((s) => [s.id, s.name])),
    services: new Map(services.map((s) => [s.botId, s])),
  };
}

/** The name of a default channel, or null. */
function streamName(details: BotDetails, id: number | null): string | null {
  return id === null ? null : (details.streamNames.get(id) ?? null);
}

/** A bot's default channels and options, as every bot answer shows them. */
export function botDefaults(bot: User, details: BotDetails) {
  return {
    default_sending_stream: streamName(details, bot.defaultSendingStreamId),
    default_events_register_stream: streamName(details, bot.defaultEventsRegisterStreamId),
    default_all_public_streams: bot.defaultAllPublicStreams,
  };
}

/** The `services` of a bot: its outgoing-webhook endpoint, if any. */
export function botServices(bot: User, details: BotDetails) {
  const service = details.services.get(bot.id);
  if (bot.botType !== BotType.OUTGOING_WEBHOOK || !service) return [];
  return [{ base_url: service.baseUrl, interface: service.interface, token: service.token }];
}

/** One bot as its administrators see it, API key included; `host` makes placeholder emails. */
export function presentBot(bot: User, host: string, details: BotDetails) {
  return {
    user_id: bot.id,
    email: apiEmail(bot, host),
    full_name: bot.fullName,
    bot_type: bot.botType ?? BotType.GENERIC,
    is_active: bot.isActive,
    api_key: bot.apiKey,
    ...botDefaults(bot, details),
    avatar_url: avatarUrl(bot, false, true),
    owner_id: bot.botOwnerId,
    services: botServices(bot, details),
  };
}

/** Who receives a bot's `realm_bot` events: its owner and the organization's administrators. */
export async function botAudience(db: Db, bot: Pick<User, 'realmId' | 'botOwnerId'>) {
  const admins = await db.user.findMany({
    where: { realmId: bot.realmId, isActive: true, role: { lte: Role.ADMINISTRATOR } },
    select: { id: true },
  });
  const ids = new Set(admins.map((a) => a.id));
  if (bot.botOwnerId !== null) ids.add(bot.botOwnerId);
  return [...ids];
}

/** Guests may neither create nor administer bots. */
export function refuseGuests(user: Pick<User, 'role'>): void {
  if (user.role === Role.GUEST) throw new ApiError('Not allowed for guest users');
}

/**
 * The bot `botId` of the actor's organization, which the actor owns or
 * administers; "No such bot" for anything else, "Insufficient permission"
 * for a bot the actor may not manage.
 */
export async function accessBot(db: Db, actor: User, botId: number): Promise<User> {
  refuseGuests(actor);
  const bot = await db.user.findFirst({
    where: { id: botId, realmId: actor.realmId, isBot: true },
  });
  if (!bot) throw new ApiError('No such bot');
  if (bot.botOwnerId !== actor.id && actor.role > Role.ADMINISTRATOR)
    throw new ApiError('Insufficient permission');
  return bot;
}

/** A short name as Zulip takes it: trimmed, then letters, digits, `-`, `_`, `.` and `+` only. */
export function checkShortName(raw: string): string {
  const name = raw.trim();
  if (!name || !/^[A-Za-z0-9._+-]+$/.test(name) || name.length > 80)
    throw new ApiError('Bad name or username');
  return name;
}

/** The domain of bots' email addresses: the organization's host without a port. */
export function botDomain(host: string): string {
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name.includes('.') ? name : `${name}.localdomain`;
}

/** A payload URL: an absolute http or https URL. */
export function checkPayloadUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('Enter a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ApiError('Enter a valid URL.');
  return raw;
}

/** The bot types a user may create here: generic, incoming and outgoing webhook bots. */
export function checkBotType(botType: number): void {
  if (
    botType !== BotType.GENERIC &&
    botType !== BotType.INCOMING_WEBHOOK &&
    botType !== BotType.OUTGOING_WEBHOOK
  )
    throw new ApiError('Invalid bot type');
}

/** The payload formats an outgoing webhook may use. */
export function checkInterface(value: number): void {
  if (value !== BotInterface.GENERIC && value !== BotInterface.SLACK)
    throw new ApiError('Invalid interface type');
}

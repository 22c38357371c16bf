// Bots: GET and POST /bots, PATCH and DELETE /bots/{bot_id}, and
// POST /bots/{bot_id}/api_key/regenerate.
import { doCreateBot, doRegenerateBotKey, doUpdateBot } from '../actions/users/bots';
import { doDeactivateUser } from '../actions/users/users';
import {
  BotInterface,
  BotType,
  accessBot,
  botDefaults,
  loadBotDetails,
  refuseGuests,
} from '../lib/users/bots';
import { avatarUrl } from '../lib/users/users';
import type { Handler, HandlerMap } from './types';

/** Lists the active bots the user owns, oldest first. */
export const getBots: Handler<'get-bots'> = async ({ services, user }) => {
  refuseGuests(user);
  return services.db.read(async (db) => {
    const bots = await db.user.findMany({
      where: { botOwnerId: user.id, isBot: true, isActive: true },
      orderBy: [{ dateJoined: 'asc' }, { id: 'asc' }],
    });
    const details = await loadBotDetails(db, bots);
    return {
      bots: bots.map((bot) => ({
        username: bot.email,
        full_name: bot.fullName,
        api_key: bot.apiKey,
        avatar_url: avatarUrl(bot, false, true)!,
        ...botDefaults(bot, details),
      })),
    };
  });
};

/** Creates a bot the user owns. */
export const createBot: Handler<'create-bot'> = async ({ params, services, user, realm }) => {
  const bot = await doCreateBot(services, user, realm, {
    fullName: params.full_name,
    shortName: params.short_name,
    botType: params.bot_type ?? BotType.GENERIC,
    payloadUrl: params.payload_url ?? '',
    serviceName: params.service_name,
    configData: params.config_data ?? {},
    interfaceType: params.interface_type ?? BotInterface.GENERIC,
    defaultSendingStream: params.default_sending_stream,
    defaultEventsRegisterStream: params.default_events_register_stream,
    defaultAllPublicStreams: params.default_all_public_streams,
  });
  const details = await services.db.read((db) => loadBotDetails(db, [bot]));
  return {
    user_id: bot.id,
    api_key: bot.apiKey,
    avatar_url: avatarUrl(bot, false, true)!,
    ...botDefaults(bot, details),
  };
};

/** The bot's owner or an administrator changes the bot. */
export const updateBot: Handler<'update-bot'> = async ({ params, services, user, realm }) => {
  const target = await services.db.read((db) => accessBot(db, user, params.bot_id));
  const bot = await doUpdateBot(services, user, realm, target, {
    fullName: params.full_name,
    role: params.role,
    botOwnerId: params.bot_owner_id,
    configData: params.config_data,
    servicePayloadUrl: params.service_payload_url,
    serviceInterface: params.service_interface ?? BotInterface.GENERIC,
    defaultSendingStream: params.default_sending_stream,
    defaultEventsRegisterStream: params.default_events_register_stream,
    defaultAllPublicStreams: params.default_all_public_streams,
  });
  const { details, owner } = await services.db.read(async (db) => ({
    details: await loadBotDetails(db, [bot]),
    owner:
      bot.botOwnerId === null
        ? null
        : await db.user.findUnique({ where: { id: bot.botOwnerId }, select: { email: true } }),
  }));
  return {
    full_name: bot.fullName,
    avatar_url: avatarUrl(bot, false, true)!,
    service_interface: params.service_interface ?? BotInterface.GENERIC,
    service_payload_url: params.service_payload_url ?? null,
    config_data: params.config_data ?? null,
    ...botDefaults(bot, details),
    ...(owner ? { bot_owner: owner.email } : {}),
  };
};

/** The bot's owner or an administrator deactivates the bot. */
export const deactivateBot: Handler<'deactivate-bot'> = async ({ params, services, user }) => {
  const bot = await services.db.read((db) => accessBot(db, user, params.bot_id));
  await doDeactivateUser(services, user, bot);
  return {};
};

/** The bot's owner or an administrator gives the bot a new API key. */
export const regenerateBotApiKey: Handler<'regenerate-bot-api-key'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const bot = await services.db.read((db) => accessBot(db, user, params.bot_id));
  return { api_key: await doRegenerateBotKey(services, realm, bot) };
};

/** The operations of this area, by operationId. */
export const botHandlers = {
  'get-bots': getBots,
  'create-bot': createBot,
  'update-bot': updateBot,
  'deactivate-bot': deactivateBot,
  'regenerate-bot-api-key': regenerateBotApiKey,
} satisfies Partial<HandlerMap>;

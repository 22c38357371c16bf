// Creating and administering bots: a bot is a user with an owner, created with
// its API key; an outgoing webhook bot also has a service, the endpoint the
// server posts to when the bot is mentioned or sent a direct message
// (outgoing-webhooks.ts). Owners and administrators hear of every change in
// `realm_bot` events; everyone hears of the bot itself in `realm_user` events.
import type { Realm, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import type { EventOf } from '../../events/queues';
import { ApiError } from '../../errors';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { Role } from '../../lib/constants';
import {
  BotType,
  botAudience,
  botDomain,
  checkBotType,
  checkInterface,
  checkPayloadUrl,
  checkShortName,
  loadBotDetails,
  presentBot,
  refuseGuests,
} from '../../lib/users/bots';
import { generateApiKey } from '../../lib/users/secrets';
import { realmHost } from '../../lib/users/users';
import type { Services } from '../../services';
import { checkFullName, insertUser, replaceApiKey } from './users';
import { EveryoneIn } from '../../events/bus';

/** The changed fields of a user, as a realm_user update event carries them. */
type PersonChange = EventOf<'realm_user', 'update'>['person'];

/** What POST /bots asks. */
export interface NewBot {
  fullName: string;
  shortName: string;
  botType: number;
  payloadUrl: string;
  serviceName?: string;
  configData: Record<string, string>;
  interfaceType: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
}

/** A channel named for a bot's default, which the actor must be able to read. */
async function defaultStream(tx: Db, actor: User, name: string): Promise<Stream> {
  const stream = await tx.stream.findFirst({
    where: { realmId: actor.realmId, nameLower: name.toLowerCase(), isArchived: false },
  });
  if (!stream || !(await new ChannelAccess(tx, actor).hasContentAccess(stream)))
    throw new ApiError(`Invalid channel name '${name}'`);
  return stream;
}

/** Refuses a full name another active user of the organization already has. */
async function checkNameAvailable(tx: Db, realmId: number, fullName: string, except?: number) {
  const taken = await tx.user.findFirst({
    where: { realmId, fullName, isActive: true, ...(except ? { id: { not: except } } : {}) },
    select: { id: true },
  });
  if (taken) throw new ApiError('Name is already in use!');
}

/** Sends `realm_bot` events about `bot` to its owner and the administrators, after the commit. */
async function announceBot(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  bot: User,
  op: 'add' | 'update',
  fields?: string[],
) {
  const host = realmHost(realm, services.config.externalUrl);
  const details = await loadBotDetails(tx, [bot]);
  const full = presentBot(bot, host, details);
  const audience = await botAudience(tx, bot);
  const payload =
    op === 'add'
      ? full
      : Object.fromEntries([
          ['user_id', bot.id],
          ...(fields ?? []).map((f) => [f, full[f as keyof typeof full]]),
        ]);
  onCommit(() => services.bus.publish({ type: 'realm_bot', op, bot: payload }, audience));
}

/** POST /bots: the actor creates a bot they own; returns it. */
export async function doCreateBot(
  services: Services,
  actor: User,
  realm: Realm,
  input: NewBot,
): Promise<User> {
  refuseGuests(actor);
  const shortName = checkShortName(input.shortName);
  const serviceName =
    input.botType === BotType.INCOMING_WEBHOOK ? input.serviceName : input.serviceName || shortName;
  const fullName = checkFullName(input.fullName);
  checkBotType(input.botType);
  checkInterface(input.interfaceType);
  const payloadUrl =
    input.botType === BotType.OUTGOING_WEBHOOK ? checkPayloadUrl(input.payloadUrl) : null;
  const host = realmHost(realm, services.config.externalUrl);
  const email = `${shortName}-bot@${botDomain(host)}`;
  return services.db.write(async (tx, onCommit) => {
    const taken = await tx.user.findUnique({
      where: { realmId_emailLower: { realmId: realm.id, emailLower: email.toLowerCase() } },
    });
    if (taken) throw new ApiError('Username already in use');
    await checkNameAvailable(tx, realm.id, fullName);
    const sending = input.defaultSendingStream
      ? await defaultStream(tx, actor, input.defaultSendingStream)
      : null;
    const register = input.defaultEventsRegisterStream
      ? await defaultStream(tx, actor, input.defaultEventsRegisterStream)
      : null;
    const created = await insertUser(
      tx,
      onCommit,
      services,
      realm,
      {
        email,
        fullName,
        password: null,
        role: Role.MEMBER,
        isBot: true,
        botType: input.botType,
        botOwnerId: actor.id,
      },
      null,
    );
    const bot = await tx.user.update({
      where: { id: created.id },
      data: {
        defaultSendingStreamId: sending?.id ?? null,
        defaultEventsRegisterStreamId: register?.id ?? null,
        defaultAllPublicStreams: input.defaultAllPublicStreams ?? false,
      },
    });
    if (payloadUrl !== null)
      await tx.botService.create({
        data: {
          botId: bot.id,
          name: serviceName ?? shortName,
          baseUrl: payloadUrl,
          interface: input.interfaceType,
          token: generateApiKey(),
        },
      });
    const config = {
      ...(input.botType === BotType.INCOMING_WEBHOOK && serviceName
        ? { integration_id: serviceName }
        : {}),
      ...(input.botType === BotType.INCOMING_WEBHOOK ? input.configData : {}),
    };
    await tx.botConfig.createMany({
      data: Object.entries(config).map(([key, value]) => ({ botId: bot.id, key, value })),
    });
    await announceBot(tx, onCommit, services, realm, bot, 'add');
    return bot;
  });
}

/** What PATCH /bots/{bot_id} asks; absent fields stay as they are. */
export interface BotChange {
  fullName?: string;
  role?: number;
  botOwnerId?: number;
  configData?: Record<string, string>;
  servicePayloadUrl?: string;
  serviceInterface: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
}

/** The ID of the bot's new owner: an active person of the organization. */
async function checkNewOwner(tx: Db, realm: Realm, ownerId: number): Promise<number> {
  const owner = await tx.user.findFirst({ where: { id: ownerId, realmId: realm.id } });
  if (!owner) throw new ApiError('Failed to change owner, no such user');
  if (!owner.isActive) throw new ApiError('Failed to change owner, user is deactivated');
  if (owner.isBot) throw new ApiError("Failed to change owner, bots can't own other bots");
  return owner.id;
}

/** Stores an outgoing-webhook bot's new endpoint and the bot's configuration; says whether the endpoint changed. */
async function storeBotService(tx: Db, bot: User, change: BotChange): Promise<boolean> {
  let changed = false;
  if (change.servicePayloadUrl !== undefined && bot.botType === BotType.OUTGOING_WEBHOOK) {
    await tx.botService.upsert({
      where: { botId: bot.id },
      update: { baseUrl: change.servicePayloadUrl, interface: change.serviceInterface },
      create: {
        botId: bot.id,
        name: bot.email.split('-bot@')[0],
        baseUrl: change.servicePayloadUrl,
        interface: change.serviceInterface,
        token: generateApiKey(),
      },
    });
    changed = true;
  }
  if (change.configData !== undefined)
    for (const [key, value] of Object.entries(change.configData))
      await tx.botConfig.upsert({
        where: { botId_key: { botId: bot.id, key } },
        update: { value },
        create: { botId: bot.id, key, value },
      });
  return changed;
}

/** The new owner hears of the bot as theirs; the previous one, that it left them (administrators see every bot). */
async function announceOwnerChange(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  bot: User,
  previousOwner: number,
  newOwner: number,
): Promise<void> {
  const admins = new Set(await botAudience(tx, { realmId: bot.realmId, botOwnerId: null }));
  const details = await loadBotDetails(tx, [bot]);
  const full = presentBot(bot, realmHost(realm, services.config.externalUrl), details);
  onCommit(() => {
    if (!admins.has(newOwner))
      services.bus.publish({ type: 'realm_bot', op: 'add', bot: full }, [newOwner]);
    if (!admins.has(previousOwner))
      services.bus.publish({ type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } }, [
        previousOwner,
      ]);
  });
}

/** PATCH /bots/{bot_id}: the bot's owner or an administrator changes it; returns it as it now is. */
export async function doUpdateBot(
  services: Services,
  actor: User,
  realm: Realm,
  target: User,
  change: BotChange,
): Promise<User> {
  const fullName = change.fullName === undefined ? undefined : checkFullName(change.fullName);
  if (change.role !== undefined && change.role !== target.role) {
    if ((change.role === Role.OWNER || target.role === Role.OWNER) && actor.role !== Role.OWNER)
      throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
    if (actor.role > Role.ADMINISTRATOR)
      throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  }
  if (change.servicePayloadUrl !== undefined) {
    checkInterface(change.serviceInterface);
    checkPayloadUrl(change.servicePayloadUrl);
  }
  return services.db.write(async (tx, onCommit) => {
    const before = await tx.user.findUniqueOrThrow({ where: { id: target.id } });
    const data: Partial<User> = {};
    const fields: string[] = [];
    if (fullName !== undefined && fullName !== before.fullName) {
      await checkNameAvailable(tx, realm.id, fullName, before.id);
      data.fullName = fullName;
      fields.push('full_name');
    }
    if (change.role !== undefined && change.role !== before.role) data.role = change.role;
    let previousOwner: number | null = null;
    if (change.botOwnerId !== undefined && change.botOwnerId !== before.botOwnerId) {
      previousOwner = before.botOwnerId;
      data.botOwnerId = await checkNewOwner(tx, realm, change.botOwnerId);
      fields.push('owner_id');
    }
    if (change.defaultSendingStream !== undefined) {
      data.defaultSendingStreamId = change.defaultSendingStream
        ? (await defaultStream(tx, actor, change.defaultSendingStream)).id
        : null;
      fields.push('default_sending_stream');
    }
    if (change.defaultEventsRegisterStream !== undefined) {
      data.defaultEventsRegisterStreamId = change.defaultEventsRegisterStream
        ? (await defaultStream(tx, actor, change.defaultEventsRegisterStream)).id
        : null;
      fields.push('default_events_register_stream');
    }
    if (change.defaultAllPublicStreams !== undefined) {
      data.defaultAllPublicStreams = change.defaultAllPublicStreams;
      fields.push('default_all_public_streams');
    }
    const bot = await tx.user.update({ where: { id: before.id }, data });
    if (await storeBotService(tx, bot, change)) fields.push('services');
    if (fields.length > 0) await announceBot(tx, onCommit, services, realm, bot, 'update', fields);
    if (previousOwner !== null && bot.botOwnerId !== null)
      await announceOwnerChange(tx, onCommit, services, realm, bot, previousOwner, bot.botOwnerId);
    const person: PersonChange = { user_id: bot.id };
    if (data.fullName !== undefined) person.full_name = bot.fullName;
    if (data.role !== undefined) person.role = bot.role;
    if (data.botOwnerId !== undefined) person.bot_owner_id = bot.botOwnerId;
    if (Object.keys(person).length > 1) {
      const everyone = new EveryoneIn(realm.id);
      onCommit(() => {
        services.auth.forgetUser(bot.id);
        services.bus.publish({ type: 'realm_user', op: 'update', person }, everyone);
      });
    }
    return bot;
  });
}

/** POST /bots/{bot_id}/api_key/regenerate: a new API key; the old one stops working at once. */
export async function doRegenerateBotKey(
  services: Services,
  realm: Realm,
  target: User,
): Promise<string> {
  return services.db.write(async (tx, onCommit) => {
    const bot = await replaceApiKey(tx, onCommit, services, target.id);
    await announceBot(tx, onCommit, services, realm, bot, 'update', ['api_key']);
    return bot.apiKey;
  });
}

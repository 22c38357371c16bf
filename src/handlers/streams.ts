// Channels: GET /streams, GET/PATCH/DELETE /streams/{stream_id},
// GET /get_stream_id, GET /streams/{stream_id}/members and /email_address,
// and GET /users/me/{stream_id}/topics.
import { doGetServerSecret } from '../actions/users/server-secrets';
import { doArchiveStream, doUpdateStream } from '../actions/channels/streams';
import { ApiError, badRequest } from '../errors';
import { channelEmailAddress, channelEmailToken } from '../lib/channels/email-address';
import { ChannelAccess } from '../lib/channels/stream-access';
import { subscriberIds } from '../lib/channels/subscriptions';
import { accessUserById, canAdminUser } from '../lib/users/users';
import { listStreamsForUser } from '../lib/channels/stream-lists';
import {
  presentStreams,
  streamGroupSettings,
  type StreamGroupSetting,
} from '../lib/channels/streams';
import type { GroupSettingChange } from '../actions/channels/stream-settings';
import { displayTopic, topicHistory } from '../lib/channels/topics';
import type { Handler, HandlerMap } from './types';

/** Lists channels by the flags of Part 4.20. */
export const getStreams: Handler<'get-streams'> = async ({ params, services, user }) => {
  const streams = await services.db.read(async (db) => {
    const selected = await listStreamsForUser(db, user, {
      includePublic: params.include_public ?? true,
      includeWebPublic: params.include_web_public ?? false,
      includeSubscribed: params.include_subscribed ?? true,
      excludeArchived: params.exclude_archived ?? true,
      includeAll: (params.include_all ?? false) || (params.include_all_active ?? false),
      includeOwnerSubscribed: params.include_owner_subscribed ?? false,
      includeCanAccessContent: params.include_can_access_content ?? false,
    });
    const defaultIds = params.include_default
      ? new Set(selected.filter((s) => s.isDefault).map((s) => s.id))
      : undefined;
    return presentStreams(db, selected, { defaultIds });
  });
  return { streams };
};

/** One channel the user has metadata access to. */
export const getStreamById: Handler<'get-stream-by-id'> = async ({ params, services, user }) => {
  const stream = await services.db.read(async (db) => {
    const found = await db.stream.findFirst({
      where: { id: params.stream_id, realmId: user.realmId },
    });
    if (!found || !(await new ChannelAccess(db, user).hasMetadataAccess(found)))
      throw badRequest('Invalid channel ID');
    return (await presentStreams(db, [found]))[0];
  });
  return { stream };
};

/** The ID of a channel whose messages the user may read, found by name. */
export const getStreamId: Handler<'get-stream-id'> = async ({ params, services, user }) => {
  const streamId = await services.db.read(async (db) => {
    const found = await db.stream.findFirst({
      where: { realmId: user.realmId, nameLower: params.stream.toLowerCase() },
    });
    if (!found || !(await new ChannelAccess(db, user).hasContentAccess(found)))
      throw badRequest(`Invalid channel name '${params.stream}'`);
    return found.id;
  });
  return { stream_id: streamId };
};

/** The active subscribers of a channel the user may see. */
export const getSubscribers: Handler<'get-subscribers'> = async ({ params, services, user }) => {
  const subscribers = await services.db.read(async (db) => {
    const found = await db.stream.findFirst({
      where: { id: params.stream_id, realmId: user.realmId },
    });
    if (!found || !(await new ChannelAccess(db, user).hasMetadataAccess(found)))
      throw badRequest('Invalid channel ID');
    return (await subscriberIds(db, [found.id])).get(found.id)!;
  });
  return { subscribers };
};

/** The requester's incoming email address for a channel whose messages they may read. */
export const getStreamEmailAddress: Handler<'get-stream-email-address'> = async ({
  params,
  services,
  user,
}) => {
  const stream = await services.db.read(async (db) => {
    const found = await db.stream.findFirst({
      where: { id: params.stream_id, realmId: user.realmId },
    });
    if (!found || !(await new ChannelAccess(db, user).hasContentAccess(found)))
      throw badRequest('Invalid channel ID');
    const senderId = params.sender_id;
    if (senderId !== undefined && senderId !== user.id) {
      // As Zulip's access to a bot: another user's own account is "No such bot".
      const bot = await accessUserById(db, user, senderId, {
        forAdmin: false,
        allowBots: true,
        allowDeactivated: true,
      }).catch(() => null);
      if (!bot || !bot.isBot) throw new ApiError('No such bot');
      if (!canAdminUser(user, bot)) throw new ApiError('Insufficient permission');
    }
    return found;
  });
  const sender = params.sender_id ?? null;
  const token = channelEmailToken(
    await doGetServerSecret(services, 'channel-email'),
    stream.id,
    user.id,
    sender,
  );
  return {
    email: channelEmailAddress(services.config.emailGatewayPattern, stream.name, token),
  };
};

/** Archives a channel. */
export const archiveStream: Handler<'archive-stream'> = async ({ params, services, user }) => {
  await doArchiveStream(services, user, params.stream_id);
  return {};
};

/** Changes a channel's name, description, privacy, settings or archived state. */
export const updateStream: Handler<'update-stream'> = async ({ params, services, user, realm }) => {
  const groups: Partial<Record<StreamGroupSetting, GroupSettingChange>> = {};
  for (const name of Object.keys(streamGroupSettings) as StreamGroupSetting[]) {
    const change = params[name];
    if (change !== undefined) groups[name] = change as GroupSettingChange;
  }
  const retention = params.message_retention_days;
  await doUpdateStream(services, realm, user, params.stream_id, {
    settings: {
      messageRetentionDays:
        retention === undefined
          ? undefined
          : retention === 'realm_default'
            ? null
            : retention === 'unlimited'
              ? -1
              : retention,
      topicsPolicy: params.topics_policy,
      folderId: params.folder_id,
      groups,
    },
    description: params.description,
    newName: params.new_name,
    isPrivate: params.is_private,
    isWebPublic: params.is_web_public,
    historyPublicToSubscribers: params.history_public_to_subscribers,
    isArchived: params.is_archived,
    isDefault: params.is_default_stream,
  });
  return {};
};

/** The topics of a channel whose content the user can read, newest first. */
export const getStreamTopics: Handler<'get-stream-topics'> = async ({ params, services, user }) => {
  const topics = await services.db.read(async (db) => {
    const stream = await db.stream.findFirst({
      where: { id: params.stream_id, realmId: user.realmId },
    });
    if (!stream || !(await new ChannelAccess(db, user).hasContentAccess(stream)))
      throw badRequest('Invalid channel ID');
    return topicHistory(db, stream.id, stream.historyPublicToSubscribers ? null : user.id);
  });
  const allowEmpty = params.allow_empty_topic_name ?? false;
  return {
    topics: topics.map((t) => ({ name: displayTopic(t.name, allowEmpty), max_id: t.max_id })),
  };
};

/** The operations of this area, by operationId. */
export const streamHandlers = {
  'get-streams': getStreams,
  'get-stream-by-id': getStreamById,
  'get-stream-id': getStreamId,
  'get-subscribers': getSubscribers,
  'get-stream-email-address': getStreamEmailAddress,
  'archive-stream': archiveStream,
  'update-stream': updateStream,
  'get-stream-topics': getStreamTopics,
} satisfies Partial<HandlerMap>;

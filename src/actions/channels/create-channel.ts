// POST /channels/create: one new channel with its first subscribers, as
// Zulip's dedicated creation endpoint (feature level 417) makes it. The
// checks and the writes are those of creating through a subscription.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError, badRequest } from '../../errors';
import { channelFolderById } from '../../lib/channels/channel-folders';
import { ChannelAccess, isGuest } from '../../lib/channels/stream-access';
import { checkStreamName } from '../../lib/channels/streams';
import type { Services } from '../../services';
import { checkCreationPermissions, createStreams, type NewStreamSettings } from './streams';
import { addSubscriptions, resolvePrincipals } from './subscriptions';

/** What POST /channels/create asks for. */
export interface NewChannelRequest {
  name: string;
  description: string;
  /** The users subscribed to it at once, by ID (the creator only if listed). */
  subscribers: number[];
  settings: NewStreamSettings;
}

/**
 * Creates one channel and subscribes `subscribers` to it, refusing a name
 * the organization already uses (archived channels included). Returns the
 * new channel's ID.
 */
export async function doCreateChannel(
  services: Services,
  realm: Realm,
  user: User,
  request: NewChannelRequest,
): Promise<number> {
  return services.db.write(async (tx, onCommit) => {
    if (isGuest(user)) throw badRequest('Not allowed for guest users');
    const name = request.name.trim();
    checkStreamName(name);
    const clash = await tx.stream.findFirst({
      where: { realmId: realm.id, nameLower: name.toLowerCase() },
    });
    if (clash)
      throw new ApiError(`Channel '${clash.name}' already exists`, 'CHANNEL_ALREADY_EXISTS');
    await checkCreationPermissions(new ChannelAccess(tx, user), realm, request.settings);
    if (request.settings.folderId !== null)
      await channelFolderById(tx, realm.id, request.settings.folderId);
    const subscribers =
      request.subscribers.length > 0
        ? await resolvePrincipals(tx, realm.id, [...new Set(request.subscribers)])
        : [];
    const [stream] = await createStreams(
      tx,
      onCommit,
      services,
      realm,
      user,
      [{ name, description: request.description }],
      request.settings,
    );
    if (subscribers.length > 0)
      await addSubscriptions(
        tx,
        onCommit,
        services,
        subscribers.map((subscriber) => ({ user: subscriber, stream })),
      );
    return stream.id;
  });
}

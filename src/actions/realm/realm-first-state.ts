// A new organization's first state, made in the transaction that creates it:
// its first channels, all default channels for newcomers, and Welcome Bot's
// first messages in them, so that nobody starts in an empty organization.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { SystemGroup, type SystemGroupName } from '../../lib/constants';
import { firstChannels, firstMessages } from '../../lib/realm/first-state';
import type { Services } from '../../services';
import { createStreams } from '../channels/streams';
import { sendMessageIn } from '../messages/messages';

/** The first channels' IDs, by their key in `firstChannels`. */
export type FirstChannelIds = Map<keyof typeof firstChannels, number>;

/**
 * Creates the first channels of `realm`, public and default for newcomers, as
 * Zulip creates them: without a creator, administered by the organization's
 * administrators alone. `maker` is the account the creation is done as.
 */
export async function createFirstChannels(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  maker: User,
  groups: Map<SystemGroupName, number>,
): Promise<FirstChannelIds> {
  const ids: FirstChannelIds = new Map();
  for (const [key, channel] of Object.entries(firstChannels) as [
    keyof typeof firstChannels,
    { name: string; description: string },
  ][]) {
    const [stream] = await createStreams(tx, onCommit, services, realm, maker, [channel], {
      inviteOnly: false,
      isWebPublic: false,
      isDefault: true,
      historyPublicToSubscribers: true,
      messageRetentionDays: null,
      topicsPolicy: 'inherit',
      folderId: null,
      groups: { can_administer_channel_group: groups.get(SystemGroup.NOBODY)! },
    });
    ids.set(key, stream.id);
  }
  await tx.stream.updateMany({
    where: { id: { in: [...ids.values()] } },
    data: { creatorId: null },
  });
  return ids;
}

/** Has `welcomeBot` post the first conversations; returns the messages' IDs, oldest first. */
export async function postFirstMessages(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  welcomeBot: User,
  channels: FirstChannelIds,
): Promise<number[]> {
  const ids: number[] = [];
  for (const message of firstMessages())
    ids.push(
      await sendMessageIn(tx, onCommit, services, realm, welcomeBot, {
        type: 'stream',
        to: channels.get(message.channel)!,
        topic: message.topic,
        content: message.content,
        byServer: true,
      }),
    );
  return ids;
}

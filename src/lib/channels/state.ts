// Initial state of POST /register for channels: `subscription` (subscribed,
// unsubscribed, never subscribed), `stream` (channels the user can see), the
// organization's default channels and default channel groups, and channel
// folders.
import type { StateProvider, StateProviders } from '../state';
import { channelFoldersState } from './channel-folders';
import { defaultStreamGroupsState, defaultStreamsState } from './default-streams';
import { isAdmin } from './stream-access';
import { listStreamsForUser } from './stream-lists';
import { presentStreams } from './streams';
import { gatherSubscriptions } from './subscriptions';

/** `subscription`: the user's subscriptions and the channels they left or never joined. */
export const subscriptionState: StateProvider = ({
  db,
  user,
  includeSubscribers,
  clientCapabilities,
}) =>
  gatherSubscriptions(db, user, {
    includeSubscribers,
    includeArchived: clientCapabilities.archived_channels === true,
  });

/** `stream`: the channels the user can see (all of them for administrators). */
export const streamState: StateProvider = async ({ db, user, clientCapabilities }) => {
  const streams = await listStreamsForUser(db, user, {
    includePublic: true,
    includeWebPublic: true,
    includeSubscribed: true,
    excludeArchived: clientCapabilities.archived_channels !== true,
    includeAll: isAdmin(user),
    includeOwnerSubscribed: false,
    includeCanAccessContent: false,
  });
  return { streams: await presentStreams(db, streams) };
};

/** The channels area's register state. */
export const channelStateProviders = {
  subscription: subscriptionState,
  stream: streamState,
  default_streams: defaultStreamsState,
  default_stream_groups: defaultStreamGroupsState,
  channel_folders: channelFoldersState,
} satisfies StateProviders;

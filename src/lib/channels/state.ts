// Initial state of POST /register for channels and messages: `subscription`
// (subscribed, unsubscribed, never subscribed), `stream` (channels the user
// can see), `message` (max_message_id) and `update_message_flags` (unreads).
import { maxMessageId } from '../messages/messages';
import type { StateProvider } from '../state';
import { listStreamsForUser } from './stream-lists';
import { isAdmin } from './stream-access';
import { presentStreams } from './streams';
import { gatherSubscriptions } from './subscriptions';
import { unreadMessages } from '../messages/unreads';

/** `subscription`: the user's subscriptions and the channels they left or never joined. */
export const subscriptionState: StateProvider = ({ db, user, includeSubscribers, clientCapabilities }) =>
  gatherSubscriptions(db, user, { includeSubscribers, includeArchived: clientCapabilities.archived_channels === true });

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

/** `message`: the highest message ID the user has received, or -1. */
export const messageState: StateProvider = async ({ db, user }) => ({ max_message_id: await maxMessageId(db, user.id) });

/** `update_message_flags`: the user's unread messages. */
export const unreadState: StateProvider = async ({ db, user, clientCapabilities }) => ({
  unread_msgs: await unreadMessages(db, user.id, clientCapabilities.empty_topic_name === true),
});

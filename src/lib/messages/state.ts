// Initial state of POST /register for messages: `message` (max_message_id),
// `update_message_flags` (unreads), `drafts` and `scheduled_messages`.
import type { StateProvider, StateProviders } from '../state';
import { draftsState } from './drafts';
import { maxMessageId } from './messages';
import { scheduledMessagesState } from './scheduled-messages';
import { unreadMessages } from './unreads';

/** `message`: the highest message ID the user has received, or -1. */
export const messageState: StateProvider = async ({ db, user }) => ({
  max_message_id: await maxMessageId(db, user.id),
});

/** `update_message_flags`: the user's unread messages. */
export const unreadState: StateProvider = async ({ db, user, clientCapabilities }) => ({
  unread_msgs: await unreadMessages(db, user.id, clientCapabilities.empty_topic_name === true),
});

/** The messages area's register state. */
export const messageStateProviders = {
  drafts: draftsState,
  scheduled_messages: scheduledMessagesState,
  message: messageState,
  update_message_flags: unreadState,
} satisfies StateProviders;

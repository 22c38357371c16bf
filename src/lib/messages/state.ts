// Initial state of POST /register for messages: `message` (max_message_id),
// unread messages (with both `message` and `update_message_flags`, as Zulip),
// starred messages, recent direct message conversations, `drafts`,
// `scheduled_messages`, `saved_snippets` and message `reminders`.
import { wants, type StateProvider, type StateProviders } from '../state';
import { recentPrivateConversations, starredMessageIds } from './conversations';
import { draftsState } from './drafts';
import { maxMessageId } from './messages';
import { remindersState } from './reminders';
import { savedSnippetsState } from './saved-snippets';
import { scheduledMessagesState } from './scheduled-messages';
import { unreadMessages } from './unreads';

/** `message`: the highest message ID the user has received, or -1. */
export const messageState: StateProvider = async ({ db, user }) => ({
  max_message_id: await maxMessageId(db, user.id),
});

/**
 * `update_message_flags`: the user's unread messages, when `message` is asked
 * for too (new messages arrive unread through message events alone).
 */
export const unreadState: StateProvider = async (req) =>
  wants(req, 'message')
    ? {
        unread_msgs: await unreadMessages(
          req.db,
          req.user.id,
          req.clientCapabilities.empty_topic_name === true,
        ),
      }
    : {};

/** The messages area's register state. */
export const messageStateProviders = {
  drafts: draftsState,
  scheduled_messages: scheduledMessagesState,
  message: messageState,
  update_message_flags: unreadState,
  starred_messages: async ({ db, user }) => ({
    starred_messages: await starredMessageIds(db, user.id),
  }),
  recent_private_conversations: async ({ db, user }) => ({
    recent_private_conversations: await recentPrivateConversations(db, user.id),
  }),
  reminders: remindersState,
  saved_snippets: savedSnippetsState,
} satisfies StateProviders;

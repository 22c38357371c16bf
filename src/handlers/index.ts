// The handler of every operation of openapi.yaml, by operationId. Each area of
// the API exports its handlers from its own file and is listed here.
import { fetchApiKey } from './auth';
import { deleteQueue, getEvents, registerQueue } from './events';
import { createDrafts, deleteDraft, editDraft, getDrafts } from './drafts';
import { createScheduledMessage, deleteScheduledMessage, getScheduledMessages, updateScheduledMessage } from './scheduled-messages';
import { addNavigationView, editNavigationView, getNavigationViews, removeNavigationView } from './navigation-views';
import { getOwnUser } from './own-user';
import { updatePresence } from './presence';
import { addApnsToken } from './push-devices';
import { createCustomProfileField, getCustomProfileFields } from './profile-fields';
import { updateRealm } from './realm';
import { createUserGroup, deactivateUserGroup, getUserGroups, updateUserGroup, updateUserGroupMembers } from './user-groups';
import { getUserStatus, updateStatus, updateStatusForUser } from './user-status';
import { createUser, deactivateUser, getUser, getUserByEmail, getUsers, reactivateUser, updateUser, updateUserByEmail } from './users';
import { checkMessagesMatchNarrow, getMessage, getMessages, sendMessage, updateMessageFlags } from './messages';
import { deleteMessage, getMessageHistory, updateMessage } from './message-edit';
import { getServerSettings } from './server';
import { addReaction, removeReaction } from './reactions';
import { setTypingStatus, setTypingStatusForMessageEdit } from './typing';
import { archiveStream, getStreamById, getStreams, getStreamTopics, updateStream } from './streams';
import { getSubscriptions, subscribe, unsubscribe, updateSubscriptionSettings } from './subscriptions';
import { updateSettings } from './settings';
import type { HandlerMap, PublicHandlerMap } from './types';
import { getAttachments, uploadFile } from './uploads';
import { getCustomEmoji, uploadCustomEmoji } from './realm-emoji';

/** Operations that need no credentials. */
export const publicHandlers: PublicHandlerMap = {
  'fetch-api-key': fetchApiKey,
  'get-server-settings': getServerSettings,
};

/** Operations that need HTTP basic credentials. */
export const handlers: HandlerMap = {
  'get-own-user': getOwnUser,
  'register-queue': registerQueue,
  'get-events': getEvents,
  'delete-queue': deleteQueue,
  'update-settings': updateSettings,
  'get-navigation-views': getNavigationViews,
  'add-navigation-view': addNavigationView,
  'edit-navigation-view': editNavigationView,
  'remove-navigation-view': removeNavigationView,
  'get-drafts': getDrafts,
  'create-drafts': createDrafts,
  'edit-draft': editDraft,
  'delete-draft': deleteDraft,
  'get-scheduled-messages': getScheduledMessages,
  'create-scheduled-message': createScheduledMessage,
  'update-scheduled-message': updateScheduledMessage,
  'delete-scheduled-message': deleteScheduledMessage,
  'update-presence': updatePresence,
  'add-apns-token': addApnsToken,
  'get-users': getUsers,
  'create-user': createUser,
  'get-user': getUser,
  'get-user-by-email': getUserByEmail,
  'update-user': updateUser,
  'update-user-by-email': updateUserByEmail,
  'deactivate-user': deactivateUser,
  'reactivate-user': reactivateUser,
  'get-user-status': getUserStatus,
  'update-status': updateStatus,
  'update-status-for-user': updateStatusForUser,
  'get-user-groups': getUserGroups,
  'create-user-group': createUserGroup,
  'update-user-group': updateUserGroup,
  'deactivate-user-group': deactivateUserGroup,
  'update-user-group-members': updateUserGroupMembers,
  'get-custom-profile-fields': getCustomProfileFields,
  'create-custom-profile-field': createCustomProfileField,
  'update-realm': updateRealm,
  'get-streams': getStreams,
  'get-stream-by-id': getStreamById,
  'archive-stream': archiveStream,
  'update-stream': updateStream,
  'get-stream-topics': getStreamTopics,
  'get-subscriptions': getSubscriptions,
  subscribe,
  unsubscribe,
  'update-subscription-settings': updateSubscriptionSettings,
  'send-message': sendMessage,
  'get-messages': getMessages,
  'get-message': getMessage,
  'check-messages-match-narrow': checkMessagesMatchNarrow,
  'update-message-flags': updateMessageFlags,
  'update-message': updateMessage,
  'get-message-history': getMessageHistory,
  'delete-message': deleteMessage,
  'upload-file': uploadFile,
  'get-attachments': getAttachments,
  'get-custom-emoji': getCustomEmoji,
  'upload-custom-emoji': uploadCustomEmoji,
  'add-reaction': addReaction,
  'remove-reaction': removeReaction,
  'set-typing-status': setTypingStatus,
  'set-typing-status-for-message-edit': setTypingStatusForMessageEdit,
};

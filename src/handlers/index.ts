// The handler of every operation of openapi.yaml, by operationId. Each area of
// the API exports its own map from its file (`draftHandlers` in drafts.ts, ...):
// a new operation goes there, and only a new area is added here. The merged
// maps are typed by the contract, so an operation without a handler does not
// compile, and one that two areas define throws at start.
import { alertWordHandlers } from './alert-words';
import { authHandlers } from './auth';
import { callHandlers } from './calls';
import { channelFolderHandlers } from './channel-folders';
import { draftHandlers } from './drafts';
import { defaultStreamHandlers } from './default-streams';
import { eventHandlers } from './events';
import { botHandlers } from './bots';
import { botStorageHandlers } from './bot-storage';
import { inviteHandlers } from './invites';
import { linkifierHandlers } from './linkifiers';
import { mergeAreas } from './merge';
import { mutedUserHandlers } from './muted-users';
import { messageEditHandlers } from './message-edit';
import { messageFlagHandlers } from './message-flags';
import { messageHandlers } from './messages';
import { messageRenderHandlers } from './message-render';
import { navigationViewHandlers } from './navigation-views';
import { onboardingStepHandlers } from './onboarding-steps';
import { ownUserHandlers } from './own-user';
import { playgroundHandlers } from './playgrounds';
import { presenceHandlers } from './presence';
import { profileFieldHandlers } from './profile-fields';
import { pushDeviceHandlers } from './push-devices';
import { reactionHandlers } from './reactions';
import { readReceiptHandlers } from './read-receipts';
import { realmHandlers } from './realm';
import { realmDomainHandlers } from './realm-domains';
import { realmEmojiHandlers } from './realm-emoji';
import { realmExportHandlers } from './realm-export';
import { reminderHandlers } from './reminders';
import { savedSnippetHandlers } from './saved-snippets';
import { scheduledMessageHandlers } from './scheduled-messages';
import { serverHandlers } from './server';
import { sessionHandlers, sessionPublicHandlers } from './session';
import { settingsHandlers } from './settings';
import { streamHandlers } from './streams';
import { subscriptionHandlers } from './subscriptions';
import { topicDeleteHandlers } from './topic-delete';
import type { HandlerMap, PublicHandlerMap } from './types';
import { typingHandlers } from './typing';
import { uploadHandlers } from './uploads';
import { userGroupHandlers } from './user-groups';
import { userStatusHandlers } from './user-status';
import { userTopicHandlers } from './user-topics';
import { userHandlers } from './users';
import { webhookHandlers } from './webhooks';

/** Operations that need no credentials. */
export const publicHandlers: PublicHandlerMap = mergeAreas(
  authHandlers,
  serverHandlers,
  sessionPublicHandlers,
);

/** Operations that need HTTP basic credentials. */
export const handlers: HandlerMap = mergeAreas(
  ownUserHandlers,
  eventHandlers,
  settingsHandlers,
  navigationViewHandlers,
  draftHandlers,
  scheduledMessageHandlers,
  savedSnippetHandlers,
  reminderHandlers,
  presenceHandlers,
  pushDeviceHandlers,
  userHandlers,
  userStatusHandlers,
  userGroupHandlers,
  profileFieldHandlers,
  realmHandlers,
  streamHandlers,
  channelFolderHandlers,
  subscriptionHandlers,
  messageHandlers,
  messageEditHandlers,
  messageRenderHandlers,
  readReceiptHandlers,
  topicDeleteHandlers,
  messageFlagHandlers,
  uploadHandlers,
  realmEmojiHandlers,
  linkifierHandlers,
  realmExportHandlers,
  playgroundHandlers,
  realmDomainHandlers,
  onboardingStepHandlers,
  botHandlers,
  botStorageHandlers,
  defaultStreamHandlers,
  reactionHandlers,
  typingHandlers,
  callHandlers,
  webhookHandlers,
  inviteHandlers,
  userTopicHandlers,
  mutedUserHandlers,
  alertWordHandlers,
  sessionHandlers,
);

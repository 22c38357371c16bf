// The handler of every operation of openapi.yaml, by operationId. Each area of
// the API exports its own map from its file (`draftHandlers` in drafts.ts, ...):
// a new operation goes there, and only a new area is added here. The merged
// maps are typed by the contract, so an operation without a handler does not
// compile, and one that two areas define throws at start.
import { authHandlers } from './auth';
import { draftHandlers } from './drafts';
import { eventHandlers } from './events';
import { mergeAreas } from './merge';
import { messageEditHandlers } from './message-edit';
import { messageHandlers } from './messages';
import { navigationViewHandlers } from './navigation-views';
import { ownUserHandlers } from './own-user';
import { presenceHandlers } from './presence';
import { profileFieldHandlers } from './profile-fields';
import { pushDeviceHandlers } from './push-devices';
import { reactionHandlers } from './reactions';
import { realmHandlers } from './realm';
import { realmEmojiHandlers } from './realm-emoji';
import { scheduledMessageHandlers } from './scheduled-messages';
import { serverHandlers } from './server';
import { settingsHandlers } from './settings';
import { streamHandlers } from './streams';
import { subscriptionHandlers } from './subscriptions';
import type { HandlerMap, PublicHandlerMap } from './types';
import { typingHandlers } from './typing';
import { uploadHandlers } from './uploads';
import { userGroupHandlers } from './user-groups';
import { userStatusHandlers } from './user-status';
import { userHandlers } from './users';

/** Operations that need no credentials. */
export const publicHandlers: PublicHandlerMap = mergeAreas(authHandlers, serverHandlers);

/** Operations that need HTTP basic credentials. */
export const handlers: HandlerMap = mergeAreas(
  ownUserHandlers,
  eventHandlers,
  settingsHandlers,
  navigationViewHandlers,
  draftHandlers,
  scheduledMessageHandlers,
  presenceHandlers,
  pushDeviceHandlers,
  userHandlers,
  userStatusHandlers,
  userGroupHandlers,
  profileFieldHandlers,
  realmHandlers,
  streamHandlers,
  subscriptionHandlers,
  messageHandlers,
  messageEditHandlers,
  uploadHandlers,
  realmEmojiHandlers,
  reactionHandlers,
  typingHandlers,
);

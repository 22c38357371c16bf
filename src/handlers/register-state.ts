// Every initial-state provider of POST /register, by the event type that
// selects it. Each area of lib/ exports its own providers from its state.ts;
// a new event type goes there, and only a new area is added here.
import { channelStateProviders } from '../lib/channels/state';
import { emojiStateProviders } from '../lib/emoji/state';
import { groupStateProviders } from '../lib/groups/state';
import { messageStateProviders } from '../lib/messages/state';
import { narrowStateProviders } from '../lib/narrow/state';
import { realmStateProviders } from '../lib/realm/state';
import type { StateProviders } from '../lib/state';
import { userStateProviders, userTopicStateProviders } from '../lib/users/state';
import { mergeAreas } from './merge';

/** Providers by event type, in the order their fields are merged. */
export const stateProviders: StateProviders = mergeAreas(
  realmStateProviders,
  userStateProviders,
  userTopicStateProviders,
  groupStateProviders,
  messageStateProviders,
  channelStateProviders,
  emojiStateProviders,
  narrowStateProviders,
);

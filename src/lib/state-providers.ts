// Every initial-state provider, by the event type that selects it.
import type { StateProvider } from './state';
import { realmState, realmUserState } from './state-core';
import { userSettingsState } from './user-settings';

/** Providers by event type, in the order their fields are merged. */
export const stateProviders: Record<string, StateProvider> = {
  realm: realmState,
  realm_user: realmUserState,
  user_settings: userSettingsState,
};

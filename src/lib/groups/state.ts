// Initial state of POST /register for user groups (`realm_user_groups`).
import type { StateProviders } from '../state';
import { userGroupState } from './user-groups';

/** The groups area's register state. */
export const groupStateProviders = {
  realm_user_groups: userGroupState,
} satisfies StateProviders;

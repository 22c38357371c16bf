// Initial state of POST /register for user groups (`user_group`).
import type { StateProviders } from '../state';
import { userGroupState } from './user-groups';

/** The groups area's register state. */
export const groupStateProviders = {
  user_group: userGroupState,
} satisfies StateProviders;

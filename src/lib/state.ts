// The initial state of POST /register, assembled from one provider per event
// type. Each area of the API adds its providers to `stateProviders` (in its
// own file, listed in src/handlers/register-state.ts), so a client that registers
// for an event type gets both the current state and the events that change it.
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import type { Db } from '../db/client';
import type { Services } from '../services';

/** What a provider knows about the registration. */
export interface StateRequest {
  db: Db;
  services: Services;
  user: User;
  realm: Realm;
  clientGravatar: boolean;
  applyMarkdown: boolean;
  includeSubscribers: boolean;
  slimPresence: boolean;
  clientCapabilities: Record<string, unknown>;
  /** The narrow the queue was registered with (objects with operator, operand, negated). */
  narrow: { operator: string; operand: unknown; negated?: boolean }[];
}

/** Computes the initial-state fields of one event type. */
export type StateProvider = (req: StateRequest) => Promise<Record<string, unknown>>;

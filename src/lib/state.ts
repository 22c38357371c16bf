// The initial state of POST /register, assembled from one provider per event
// type. Each area of lib/ exports its providers from its own state.ts (for
// example `channelStateProviders` in lib/channels/state.ts), and
// src/handlers/register-state.ts merges them, so a client that registers for
// an event type gets both the current state and the events that change it.
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import type { Config } from '../config';
import type { Db } from '../db/client';
import type { NarrowTerm } from '../events/queues';
import type { PresenceCache } from './presence-cache';
import type { operations } from '../../generated/api';

/**
 * Which subscriber lists to include: none (false), every one (true), or, with
 * `partial`, whole lists for smaller channels and, for the larger ones, only
 * their bots and recently active people, as `partial_subscribers` (Zulip's
 * feature level 412; the thresholds are in lib/channels/subscriptions.ts).
 */
export type SubscriberListing = boolean | 'partial';

/** The answer of POST /register as the contract describes it. */
export type RegisterState =
  operations['register-queue']['responses'][200]['content']['application/json'];

/** What a provider knows about the registration. */
export interface StateRequest {
  db: Db;
  /** The address users reach the server at (EXTERNAL_URL): realm_url and placeholder emails. */
  externalUrl: string;
  /** The server's configuration (limits and timings some keys report). */
  config: Config;
  /**
   * The event types whose state was asked for by name, or null for all of them
   * (a few keys depend on what else was asked, as in Zulip).
   */
  fetchEventTypes: string[] | null;
  user: User;
  realm: Realm;
  clientGravatar: boolean;
  applyMarkdown: boolean;
  /** Subscriber lists for channels: none, all, or `partial` (see SubscriberListing). */
  includeSubscribers: SubscriberListing;
  slimPresence: boolean;
  /** The process's presence rows (see lib/presence-cache.ts). */
  presence: PresenceCache;
  clientCapabilities: Record<string, unknown>;
  /** The narrow the queue was registered with. */
  narrow: NarrowTerm[];
}

/** Whether the registration asked for the state of event type `type` (by name, or by asking for all). */
export function wants(req: Pick<StateRequest, 'fetchEventTypes'>, type: string): boolean {
  return req.fetchEventTypes === null || req.fetchEventTypes.includes(type);
}

/** Computes the initial-state fields of one event type. */
export type StateProvider = (req: StateRequest) => Promise<Partial<RegisterState>>;

/** An area's providers, by the event type that selects each. */
export type StateProviders = Record<string, StateProvider>;

// How actions publish events. Today every event is for this process's queues;
// a deployment of several processes on PostgreSQL replaces LocalEventBus with
// one that relays through Redis, without any action changing.
import type { CapabilityFallback, EventBody, EventQueues } from './queues';

/** Publishes events to users' queues, wherever those queues live. */
export interface EventBus {
  /**
   * Sends `event` to every queue of `userIds`; queues whose client lacks
   * `fallback.capability` get `fallback.event` (or nothing) instead.
   */
  publish(event: EventBody, userIds: Iterable<number>, fallback?: CapabilityFallback): void;
  /** Sends a public channel's message event to the realm's all_public_streams queues, except those of `exceptUserIds`. */
  publishToPublicChannelQueues(
    realmId: number,
    event: EventBody,
    exceptUserIds: Iterable<number>,
  ): void;
}

/** Delivers straight into this process's queues. */
export class LocalEventBus implements EventBus {
  constructor(private readonly queues: EventQueues) {}

  publish(event: EventBody, userIds: Iterable<number>, fallback?: CapabilityFallback): void {
    this.queues.publish(event, userIds, fallback);
  }

  publishToPublicChannelQueues(
    realmId: number,
    event: EventBody,
    exceptUserIds: Iterable<number>,
  ): void {
    this.queues.publishToPublicChannelQueues(realmId, event, exceptUserIds);
  }
}

// How actions publish events: to users, wherever their queues live (this
// process's memory, or a Redis shared by every process). Actions publish after
// their transaction commits and never wait on the bus themselves; the database
// waits for `settled` before a write returns, so that a client that hears of a
// change from its request finds the change's events in its queues.
import type {
  CapabilityFallback,
  EventBody,
  EventQueueStore,
  MessageFacts,
  Publication,
} from './queues';

/**
 * Everyone in an organization but the users of `except`: every queue
 * registered there, published to without listing the members, so that the
 * event costs the same whatever their number. A deactivated member's queue is
 * among them; it cannot be polled while its owner is deactivated.
 */
export class EveryoneIn {
  readonly except: number[];

  constructor(
    readonly realmId: number,
    except: Iterable<number> = [],
  ) {
    this.except = [...new Set(except)];
  }
}

/** Whom an event is for: users by ID, or everyone in an organization. */
export type Recipients = Iterable<number> | EveryoneIn;

/** Publishes events to users' queues, wherever those queues live. */
export interface EventBus {
  /**
   * Sends `event` to every queue of `to`; queues whose client lacks
   * `fallback.capability` get `fallback.event` (or nothing) instead.
   */
  publish(event: EventBody, to: Recipients, fallback?: CapabilityFallback): void;
  /**
   * Sends a legacy `event` to the queues of `to` whose client lacks
   * `capability` (clients that have it get the event that replaced it).
   */
  publishLegacy(event: EventBody, to: Recipients, capability: string): void;
  /**
   * Sends a legacy `event` to the queues of `to` that did not ask by name
   * for `eventType`, the type that replaced it.
   */
  publishSuperseded(event: EventBody, to: Recipients, eventType: string): void;
  /**
   * Sends a message event to every queue of `userIds`, with the facts that
   * queues registered with a narrow are matched against and that shape the
   * event for each queue (raw Markdown, gravatar avatars).
   */
  publishMessage(event: EventBody, userIds: Iterable<number>, facts: MessageFacts): void;
  /** Sends a public channel's message event to the realm's all_public_streams queues, except those of `exceptUserIds`. */
  publishToPublicChannelQueues(
    realmId: number,
    event: EventBody,
    exceptUserIds: Iterable<number>,
    facts: MessageFacts,
  ): void;
  /** Resolves once every event published so far is in its queues. */
  settled(): Promise<void>;
}

/** Hands publications to a queue store, keeping track of those still on their way. */
export class QueueEventBus implements EventBus {
  private pending = new Set<Promise<void>>();

  constructor(
    private readonly store: EventQueueStore,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  publish(event: EventBody, to: Recipients, fallback?: CapabilityFallback): void {
    this.send(fallback ? { event, fallback } : { event }, to);
  }

  publishLegacy(event: EventBody, to: Recipients, capability: string): void {
    this.send({ event, onlyWithout: capability }, to);
  }

  publishSuperseded(event: EventBody, to: Recipients, eventType: string): void {
    this.send({ event, supersededBy: eventType }, to);
  }

  publishMessage(event: EventBody, userIds: Iterable<number>, facts: MessageFacts): void {
    this.track(this.store.publish({ event, facts }, userIds));
  }

  publishToPublicChannelQueues(
    realmId: number,
    event: EventBody,
    exceptUserIds: Iterable<number>,
    facts: MessageFacts,
  ): void {
    const publication: Publication = { event, facts };
    this.track(this.store.publishToPublicQueues(realmId, publication, exceptUserIds));
  }

  settled(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return Promise.all([...this.pending]).then(() => undefined);
  }

  private send(publication: Publication, to: Recipients): void {
    this.track(
      to instanceof EveryoneIn
        ? this.store.publishToRealm(to.realmId, publication, to.except)
        : this.store.publish(publication, to),
    );
  }

  /** Remembers a publication still on its way; a failed one is reported, never thrown at the action. */
  private track(result: void | Promise<void>): void {
    if (!result) return;
    const done: Promise<void> = result
      .catch((error) => this.onError(error))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }
}

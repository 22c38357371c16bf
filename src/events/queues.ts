// Event queues: one per registered client, held in this process's memory.
// Actions publish events to users after their transaction commits; each of the
// user's queues that asked for that event type keeps a copy with its own ID.
// A long-poll waits on its queue without holding any database connection.
import { randomUUID } from 'node:crypto';

/** An event as published: a type and its fields. */
export type EventBody = { type: string } & Record<string, unknown>;
/** An event as delivered: with its position in the queue. */
export type QueuedEvent = EventBody & { id: number };

/**
 * One term of a narrow, in the one form the server works with: parsed once,
 * where a request brings it in, from either form a client sends
 * (lib/narrow/narrow.ts).
 */
export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

/** What a client asked for when it registered. */
export interface QueueOptions {
  userId: number;
  realmId: number;
  /** Event types to keep; null keeps all. */
  eventTypes: string[] | null;
  allPublicStreams: boolean;
  /** Message events are kept only when they match this narrow (empty: all). */
  narrow: NarrowTerm[];
  clientCapabilities: Record<string, unknown>;
  /** Message content as HTML (true) or raw Markdown (false). */
  applyMarkdown: boolean;
  /** The client computes gravatar addresses itself. */
  clientGravatar: boolean;
}

/** One client's queue. */
export class EventQueue {
  readonly id = randomUUID();
  events: QueuedEvent[] = [];
  /** ID of the last event added; -1 before the first. */
  lastEventId = -1;
  lastTouched = Date.now();
  waiter: ((events: QueuedEvent[]) => void) | null = null;
  private readonly types: Set<string> | null;

  constructor(readonly options: QueueOptions) {
    this.types = options.eventTypes ? new Set(options.eventTypes) : null;
  }

  /** Whether this queue keeps events of `type`. */
  wants(type: string): boolean {
    return type === 'heartbeat' || !this.types || this.types.has(type);
  }
}

/**
 * What queues whose client lacks `capability` get instead of the event: a
 * replacement, or null for nothing. Plain data, so it can travel between
 * processes with the event.
 */
export interface CapabilityFallback {
  capability: string;
  event: EventBody | null;
}

/** Decides whether a message event belongs in a queue registered with a narrow. */
export type NarrowFilter = (queue: EventQueue, event: EventBody) => boolean;
/** Shapes an event for one queue's registration options (e.g. raw Markdown). */
export type EventFinalizer = (queue: EventQueue, event: EventBody) => EventBody;

/** Timing and size limits of the queues. */
export interface QueueLimits {
  heartbeatMs: number;
  idleTimeoutMs: number;
  maxEvents: number;
}

/** All queues of this process. */
export class EventQueues {
  private queues = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  private sweeper: NodeJS.Timeout;
  /** Set at start by the messages area (src/lib/narrow/narrow-events.ts). */
  narrowFilter: NarrowFilter = () => true;
  /** Likewise; shapes message events for each queue's apply_markdown and client_gravatar. */
  finalizeEvent: EventFinalizer = (_queue, event) => event;
  private pendingWakes = new Set<EventQueue>();

  constructor(private readonly limits: QueueLimits) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, limits.idleTimeoutMs)).unref();
  }

  /** Creates a queue for a user. */
  create(options: QueueOptions): EventQueue {
    const queue = new EventQueue(options);
    this.queues.set(queue.id, queue);
    let mine = this.byUser.get(options.userId);
    if (!mine) this.byUser.set(options.userId, (mine = new Set()));
    mine.add(queue);
    return queue;
  }

  /** The user's queue with this ID, or undefined when it does not exist (or is not theirs). */
  get(queueId: string, userId: number): EventQueue | undefined {
    const queue = this.queues.get(queueId);
    return queue && queue.options.userId === userId ? queue : undefined;
  }

  /** Removes a queue, answering its waiting poll with nothing. */
  delete(queue: EventQueue): void {
    this.queues.delete(queue.id);
    this.byUser.get(queue.options.userId)?.delete(queue);
    if (this.byUser.get(queue.options.userId)?.size === 0) this.byUser.delete(queue.options.userId);
    this.wake(queue, []);
  }

  /** The queues of one organization, for events that go to more than subscribers. */
  *realmQueues(realmId: number): Iterable<EventQueue> {
    for (const queue of this.queues.values()) if (queue.options.realmId === realmId) yield queue;
  }

  /**
   * Delivers `event` to every queue of the given users that wants it; queues
   * whose client lacks `fallback.capability` get `fallback.event` instead.
   */
  publish(event: EventBody, userIds: Iterable<number>, fallback?: CapabilityFallback): void {
    for (const userId of userIds) {
      const mine = this.byUser.get(userId);
      if (!mine) continue;
      for (const queue of mine) {
        const body =
          !fallback || queue.options.clientCapabilities[fallback.capability] === true
            ? event
            : fallback.event;
        if (body) this.deliver(queue, body);
      }
    }
  }

  /**
   * Delivers a message event of a public channel to the organization's queues
   * registered with all_public_streams, except those of `exceptUserIds` (the
   * recipients, who get it with their own flags).
   */
  publishToPublicChannelQueues(
    realmId: number,
    event: EventBody,
    exceptUserIds: Iterable<number>,
  ): void {
    const except = new Set(exceptUserIds);
    for (const queue of this.queues.values()) {
      if (
        queue.options.realmId === realmId &&
        queue.options.allPublicStreams &&
        !except.has(queue.options.userId)
      )
        this.deliver(queue, event);
    }
  }

  /** Adds `event` to one queue, if the queue wants it, and wakes its poll. */
  deliver(queue: EventQueue, event: EventBody): void {
    if (!queue.wants(event.type)) return;
    if (
      event.type === 'message' &&
      queue.options.narrow.length > 0 &&
      !this.narrowFilter(queue, event)
    )
      return;
    queue.lastEventId += 1;
    queue.events.push({ ...this.finalizeEvent(queue, event), id: queue.lastEventId });
    if (queue.events.length > this.limits.maxEvents)
      queue.events.splice(0, queue.events.length - this.limits.maxEvents);
    if (queue.waiter) this.scheduleWake(queue);
  }

  /**
   * Answers the queue's waiting poll on the next turn of the event loop, not
   * at once: the request that published (say, a sent message) answers its
   * own client first, and events published in the same turn go out together.
   */
  private scheduleWake(queue: EventQueue): void {
    if (this.pendingWakes.size === 0) setImmediate(() => this.flushWakes());
    this.pendingWakes.add(queue);
  }

  private flushWakes(): void {
    const queues = [...this.pendingWakes];
    this.pendingWakes.clear();
    for (const queue of queues) if (queue.waiter) this.wake(queue, queue.events.slice());
  }

  /**
   * Answers a poll: drops events up to `lastEventId` as acknowledged, returns
   * the rest at once if there are any (or if `dontBlock`), and otherwise waits
   * for the next event or, after the heartbeat interval, a heartbeat.
   * `onAbort` lets the caller cancel the wait when its client goes away.
   */
  poll(
    queue: EventQueue,
    lastEventId: number,
    dontBlock: boolean,
    onAbort?: (cancel: () => void) => void,
  ): Promise<QueuedEvent[]> {
    queue.lastTouched = Date.now();
    queue.events = queue.events.filter((e) => e.id > lastEventId);
    if (queue.events.length > 0 || dontBlock) return Promise.resolve(queue.events.slice());
    this.wake(queue, []); // a newer poll replaces an older one
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        queue.waiter = null;
        this.deliver(queue, { type: 'heartbeat' });
        resolve(queue.events.slice());
      }, this.limits.heartbeatMs);
      queue.waiter = (events) => {
        clearTimeout(timer);
        queue.waiter = null;
        queue.lastTouched = Date.now();
        resolve(events);
      };
      onAbort?.(() => {
        if (queue.waiter) {
          clearTimeout(timer);
          queue.waiter = null;
          queue.lastTouched = Date.now();
        }
      });
    });
  }

  /** Answers every waiting poll with what its queue holds (for shutdown). */
  wakeAll(): void {
    for (const queue of this.queues.values()) this.wake(queue, queue.events.slice());
  }

  /** Stops the idle-queue sweeper and answers waiting polls. */
  close(): void {
    clearInterval(this.sweeper);
    this.wakeAll();
  }

  /** Number of live queues. */
  get size(): number {
    return this.queues.size;
  }

  private wake(queue: EventQueue, events: QueuedEvent[]): void {
    queue.waiter?.(events);
  }

  /** Removes queues nobody has polled for longer than the idle timeout. */
  sweep(now = Date.now()): void {
    for (const queue of this.queues.values()) {
      if (!queue.waiter && now - queue.lastTouched > this.limits.idleTimeoutMs) this.delete(queue);
    }
  }
}

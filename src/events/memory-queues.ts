// The event queues of a single server process, held in its memory: what runs
// without REDIS_URL. Publishing is synchronous, and a waiting poll is parked
// on its queue (parked.ts).
import { randomUUID } from 'node:crypto';
import { addTo, removeFrom } from './indexes';
import { HeartbeatList, ParkedPoll, type PollAnswer } from './parked';
import {
  eventForQueue,
  noMessageHooks,
  queuedEvent,
  sharedFinalizing,
  type EventBody,
  type EventQueueStore,
  type MessageEventHooks,
  type NewQueue,
  type PollRequest,
  type Publication,
  type QueueLimits,
  type QueueOptions,
  type PublicationStats,
  type QueueStats,
  type QueuedEvent,
} from './queues';

/** Why a waiting poll is woken: events, its end (replaced, removed), shutdown, or its client gone. */
type Wake = 'events' | 'ended' | 'drained' | 'gone';

/** Drops the events up to `id` from the front of `events` (sorted by ID), in place. */
function acknowledge(events: QueuedEvent[], id: number): void {
  let n = 0;
  while (n < events.length && events[n].id <= id) n++;
  if (n > 0) events.splice(0, n);
}

/** The index of the first event after `id` in `events` (sorted by ID), counted from the end. */
function firstAfter(events: QueuedEvent[], id: number): number {
  let i = events.length;
  while (i > 0 && events[i - 1].id > id) i--;
  return i;
}

/** The events of `events` (sorted by ID) after `id`. */
function eventsAfter(events: QueuedEvent[], id: number): QueuedEvent[] {
  return events.slice(firstAfter(events, id));
}

/** One client's queue. */
class MemoryQueue {
  readonly id = randomUUID();
  events: QueuedEvent[] = [];
  /** ID of the last event added; -1 before the first. */
  lastEventId = -1;
  lastTouched = Date.now();
  /** The poll waiting on it. */
  waiter: MemoryPoll | null = null;

  constructor(readonly options: QueueOptions) {}
}

/** A poll waiting on a queue of this process. */
class MemoryPoll extends ParkedPoll {
  constructor(
    private readonly store: MemoryQueueStore,
    readonly queue: MemoryQueue,
    after: number,
    follow: boolean,
  ) {
    super(queue.id, after, follow);
  }

  cancel(): void {
    if (this.queue.waiter === this) this.store.wake(this.queue, 'gone');
  }
}

/** All queues of this process. */
export class MemoryQueueStore implements EventQueueStore {
  private queues = new Map<string, MemoryQueue>();
  private byUser = new Map<number, Set<MemoryQueue>>();
  private byRealm = new Map<number, Set<MemoryQueue>>();
  private sweeper: NodeJS.Timeout;
  private pendingWakes = new Set<MemoryQueue>();
  /** The waiting polls, for their heartbeats. */
  private readonly heartbeats: HeartbeatList;
  /** Set at shutdown: polls are answered at once. */
  private draining = false;

  constructor(
    private readonly limits: QueueLimits,
    private readonly hooks: MessageEventHooks = noMessageHooks,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, limits.idleTimeoutMs)).unref();
    this.heartbeats = new HeartbeatList(limits.heartbeatMs, (poll) =>
      this.heartbeat(poll as MemoryPoll),
    );
  }

  async create(options: QueueOptions): Promise<NewQueue> {
    const queue = new MemoryQueue(options);
    this.queues.set(queue.id, queue);
    addTo(this.byUser, options.userId, queue);
    addTo(this.byRealm, options.realmId, queue);
    return { id: queue.id, lastEventId: queue.lastEventId };
  }

  async delete(queueId: string, userId: number): Promise<boolean> {
    const queue = this.find(queueId, userId);
    if (!queue) return false;
    this.remove(queue);
    return true;
  }

  publish(publication: Publication, userIds: Iterable<number>): void {
    const hooks = sharedFinalizing(publication, this.hooks);
    for (const userId of userIds) {
      const mine = this.byUser.get(userId);
      if (mine) for (const queue of mine) this.deliver(queue, publication, hooks);
    }
  }

  publishToRealm(realmId: number, publication: Publication, exceptUserIds: number[]): void {
    const except = new Set(exceptUserIds);
    const hooks = sharedFinalizing(publication, this.hooks);
    for (const queue of this.byRealm.get(realmId) ?? [])
      if (!except.has(queue.options.userId)) this.deliver(queue, publication, hooks);
  }

  publishToPublicQueues(
    realmId: number,
    publication: Publication,
    exceptUserIds: Iterable<number>,
  ): void {
    const except = new Set(exceptUserIds);
    const hooks = sharedFinalizing(publication, this.hooks);
    for (const queue of this.byRealm.get(realmId) ?? []) {
      const { options } = queue;
      if (options.allPublicStreams && !except.has(options.userId))
        this.deliver(queue, publication, hooks);
    }
  }

  poll({
    queueId,
    userId,
    lastEventId,
    dontBlock,
    after = lastEventId,
    follow = false,
  }: PollRequest): PollAnswer | ParkedPoll {
    const queue = this.find(queueId, userId);
    if (!queue) return null;
    queue.lastTouched = Date.now();
    acknowledge(queue.events, lastEventId);
    const events = eventsAfter(queue.events, after);
    if (events.length > 0 || dontBlock) return events;
    if (this.draining) return follow ? null : events;
    this.wake(queue, 'ended'); // a newer poll replaces an older one
    const poll = new MemoryPoll(this, queue, after, follow);
    queue.waiter = poll;
    this.heartbeats.add(poll);
    return poll;
  }

  drain(): void {
    this.draining = true;
    for (const queue of this.queues.values()) this.wake(queue, 'drained');
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.drain();
  }

  /** Nothing to count: a publication to memory is delivered at once, or the process is gone. */
  publicationStats(): PublicationStats {
    return {
      delayed: 0,
      abandoned: 0,
      backlog: 0,
      queuesDropped: 0,
      markFailures: 0,
      queuesDroppedAfterCrash: 0,
    };
  }

  stats(): QueueStats {
    let events = 0;
    for (const queue of this.queues.values()) events += queue.events.length;
    return { queues: this.queues.size, events, waitingPolls: this.waitingPolls() };
  }

  waitingPolls(): number {
    let waiting = 0;
    for (const queue of this.queues.values()) if (queue.waiter) waiting++;
    return waiting;
  }

  sweep(now = Date.now()): void {
    for (const queue of this.queues.values()) {
      if (!queue.waiter && now - queue.lastTouched > this.limits.idleTimeoutMs) this.remove(queue);
    }
  }

  /** The user's queue with this ID, or undefined when it does not exist (or is not theirs). */
  private find(queueId: string, userId: number): MemoryQueue | undefined {
    const queue = this.queues.get(queueId);
    return queue && queue.options.userId === userId ? queue : undefined;
  }

  /** Removes a queue, answering its waiting poll with nothing. */
  private remove(queue: MemoryQueue): void {
    this.queues.delete(queue.id);
    removeFrom(this.byUser, queue.options.userId, queue);
    removeFrom(this.byRealm, queue.options.realmId, queue);
    this.wake(queue, 'ended');
  }

  /** Adds what a publication holds for one queue, if anything, and wakes its poll. */
  private deliver(queue: MemoryQueue, publication: Publication, hooks: MessageEventHooks): void {
    const body = eventForQueue(publication, queue.options, hooks);
    if (!body) return;
    this.append(queue, body);
    if (queue.waiter) this.scheduleWake(queue);
  }

  private append(queue: MemoryQueue, body: EventBody): void {
    queue.lastEventId += 1;
    queue.events.push(queuedEvent(body, queue.lastEventId));
    if (queue.events.length > this.limits.maxEvents)
      queue.events.splice(0, queue.events.length - this.limits.maxEvents);
  }

  /**
   * Answers the queue's waiting poll on the next turn of the event loop, not
   * at once: the request that published (say, a sent message) answers its
   * own client first, and events published in the same turn go out together.
   */
  private scheduleWake(queue: MemoryQueue): void {
    if (this.pendingWakes.size === 0) setImmediate(() => this.flushWakes());
    this.pendingWakes.add(queue);
  }

  private flushWakes(): void {
    const queues = [...this.pendingWakes];
    this.pendingWakes.clear();
    for (const queue of queues) if (queue.waiter) this.wake(queue, 'events');
  }

  /**
   * Answers the queue's waiting poll: with its events when they came (and at
   * shutdown, where a stream's poll ends), else with nothing (null for a
   * stream's poll that ended).
   */
  wake(queue: MemoryQueue, why: Wake): void {
    const poll = queue.waiter;
    if (!poll) return;
    this.heartbeats.remove(poll);
    queue.waiter = null;
    queue.lastTouched = Date.now();
    if (why === 'events' || (why === 'drained' && !poll.follow))
      poll.settle(eventsAfter(queue.events, poll.after));
    else poll.settle(poll.follow && why !== 'gone' ? null : []);
  }

  /** A poll waited the heartbeat interval: a heartbeat answers it (a stream's poll, nothing). */
  private heartbeat(poll: MemoryPoll): void {
    const { queue } = poll;
    if (queue.waiter !== poll) return;
    queue.waiter = null;
    if (poll.follow) return poll.settle([]);
    this.append(queue, { type: 'heartbeat' });
    poll.settle(eventsAfter(queue.events, poll.after));
  }
}

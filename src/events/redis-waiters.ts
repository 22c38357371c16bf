// The polls waiting in one process of the Redis queue store, and what the
// process knows of their queues: indexed by queue, by user, by realm, and by
// realm for all_public_streams queues, so that each new entry of the log finds
// the polls it answers without looking at the others.
import { addTo, removeFrom } from './indexes';
import { ParkedPoll } from './parked';
import type { QueueOptions, QueuedEvent } from './queues';
import type { LogEntry } from './log-runs';

/** A queue as a process knows it after its first poll there (options never change). */
export interface CachedQueue {
  id: string;
  options: QueueOptions;
  /** Its registration position: its events are the log's entries after it. */
  reg: number;
  /**
   * While this process's polls hold the queue: the event ID from which they
   * do (a poll elsewhere taking it later ends this process's waiting poll);
   * null when another process's poll has taken it since.
   */
  held: number | null;
  /** Deleted or dropped. */
  gone: boolean;
  /** When this process last recorded a poll of it in Redis (ms). */
  seenAt: number;
  /**
   * The log's entries after `from` up to `to` hold no event for it (as its
   * last poll here found): a poll from a position in that range reads on
   * from `to`, so that a quiet queue's stream, whose position stays behind
   * the entries kept in memory, is not read again from Redis at each heartbeat.
   */
  quiet: { from: number; to: number } | null;
}

/** What answers a waiting poll: the store's answer (events, and whether the poll is over for good). */
type Answer = (waiter: Waiter, events: QueuedEvent[], ended: boolean) => void;

/** A poll waiting in this process. */
export class Waiter extends ParkedPoll {
  /** Events for it found in the entries being read, answered once they are all read. */
  events: QueuedEvent[] | null = null;
  /** Its heartbeat came due: the next heartbeat entry naming its queue answers it. */
  heartbeat = false;

  constructor(
    private readonly store: { answer(waiter: Waiter, events: QueuedEvent[]): void },
    readonly queue: CachedQueue,
    after: number,
    follow: boolean,
  ) {
    super(queue.id, after, follow);
  }

  cancel(): void {
    this.store.answer(this, []);
  }
}

/** The waiting polls of this process. */
export class Waiters {
  private readonly byQueue = new Map<string, Waiter>();
  private readonly byUser = new Map<number, Set<Waiter>>();
  /** The waiting polls, by realm. */
  private readonly byRealm = new Map<number, Set<Waiter>>();
  /** The waiting polls of all_public_streams queues, by realm. */
  private readonly publicByRealm = new Map<number, Set<Waiter>>();

  constructor(private readonly answer: Answer) {}

  /** How many polls wait. */
  get size(): number {
    return this.byQueue.size;
  }

  /** The poll waiting on a queue. */
  of(queueId: string): Waiter | undefined {
    return this.byQueue.get(queueId);
  }

  /** Every waiting poll. */
  all(): IterableIterator<Waiter> {
    return this.byQueue.values();
  }

  /** Adds a waiting poll; an older one on the same queue is answered with nothing (replaced). */
  add(waiter: Waiter): void {
    const older = this.byQueue.get(waiter.queueId);
    if (older) this.answer(older, [], true);
    this.byQueue.set(waiter.queueId, waiter);
    const { userId, realmId, allPublicStreams } = waiter.queue.options;
    addTo(this.byUser, userId, waiter);
    addTo(this.byRealm, realmId, waiter);
    if (allPublicStreams) addTo(this.publicByRealm, realmId, waiter);
  }

  /** Removes a waiting poll (answered). */
  remove(waiter: Waiter): void {
    if (this.byQueue.get(waiter.queueId) !== waiter) return;
    this.byQueue.delete(waiter.queueId);
    const { userId, realmId, allPublicStreams } = waiter.queue.options;
    removeFrom(this.byUser, userId, waiter);
    removeFrom(this.byRealm, realmId, waiter);
    if (allPublicStreams) removeFrom(this.publicByRealm, realmId, waiter);
  }

  /** The waiting polls whose queues a publication entry is for (their options may still refuse it). */
  *reached(entry: LogEntry): Generator<Waiter> {
    const { data } = entry;
    if (data.k !== 'p') return;
    if ('u' in data) {
      for (const userId of data.u) {
        const waiting = this.byUser.get(userId);
        if (waiting) yield* [...waiting];
      }
      return;
    }
    const waiting = 'a' in data ? this.byRealm.get(data.a) : this.publicByRealm.get(data.r);
    if (!waiting) return;
    const except = new Set(data.x);
    for (const waiter of [...waiting]) if (!except.has(waiter.queue.options.userId)) yield waiter;
  }

  /** Answers every waiting poll as ended (shutdown). */
  endAll(): void {
    for (const waiter of [...this.byQueue.values()]) this.answer(waiter, [], true);
  }
}

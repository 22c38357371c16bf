// Event queues in the Redis every server process shares (REDIS_URL): any
// process can register, poll and delete any queue, and losing a process
// loses no queue. The layout of the keys and the scripts that change them are
// in redis-scripts.ts.
//
// Each event is published once, whatever the number of its queues: the
// process whose action committed appends it, with its recipients, to one
// shared log (redis-publisher.ts). Every process follows the log
// (redis-log.ts), keeps its recent entries in memory, parsed once, and
// answers its own waiting polls from each new entry, shaping the event for
// each queue (event types, narrow, apply_markdown, client_gravatar,
// capabilities) from the queue's options. A queue in Redis is its options
// and its registration position; the event ID a queue sees is its entry's
// ID, increasing within the queue but not contiguous. A poll's
// last_event_id is its acknowledgement: the events of a queue are the
// entries for it after max(last_event_id, registration position), from
// memory, or from Redis when they reach back further. A process reads a
// queue's options once, at its first poll there; later polls cost no Redis
// command. Deletions, drops and the end of a waiting poll that a newer poll
// elsewhere replaced are entries of the log too, so that every process
// forgets what it must and answers its waiting polls in order.
import { randomUUID } from 'node:crypto';
import {
  eventForQueue,
  noMessageHooks,
  queuedEvent,
  type EventQueueStore,
  type MessageEventHooks,
  type NewQueue,
  type PublicationStats,
  type PollRequest,
  type Publication,
  type QueueLimits,
  type QueueOptions,
  type QueueStats,
  type QueuedEvent,
} from './queues';
import { CommitMarks } from './commit-marks';
import { HeartbeatList, type ParkedPoll, type PollAnswer } from './parked';
import type { RedisLink } from './redis';
import {
  entryHooks,
  eventId,
  LogReader,
  LogWindow,
  OlderEntries,
  streamId,
  type RawEntry,
} from './redis-log';
import type { LogEntry } from './log-runs';
import { LogPublisher, type PublicationReport } from './redis-publisher';
import { defineScripts, runScript } from './redis-scripts';
import { Waiter, Waiters, type CachedQueue } from './redis-waiters';

export type { PublicationReport } from './redis-publisher';

/** Most queues whose options a process keeps; the oldest are forgotten past it. */
const OPTIONS_CACHE_SIZE = 50_000;
/** Most queues dropped by one script. */
const DROP_BATCH = 1000;
/** Most log entries a process keeps in memory, and for how long at most. */
const WINDOW_ENTRIES = 10_000;
const WINDOW_MS = 120_000;
/** How long the log keeps entries beyond a queue's idle timeout and heartbeat. */
const RETENTION_SLACK_MS = 60_000;

/** The event queues of every process, in Redis. */
export class RedisQueueStore implements EventQueueStore {
  private readonly cache = new Map<string, CachedQueue>();
  private readonly waiters: Waiters;
  /** The polls waiting in this process, for their heartbeats. */
  private readonly heartbeats: HeartbeatList;
  /** Queues whose waiting polls are due for a heartbeat, for the next heartbeat entry. */
  private beats = new Set<string>();
  /** Queues polled here since their last refresh in `seen`. */
  private polled = new Set<CachedQueue>();
  /** Set at shutdown: polls are answered at once. */
  private draining = false;
  private readonly publisher: LogPublisher;
  private readonly timers: NodeJS.Timeout[] = [];
  /** How long a queue's record in `seen` goes without a refresh while it is polled. */
  private readonly refreshMs: number;
  /** This process's in-flight mark, which writes with commit callbacks see to before committing. */
  readonly marks: CommitMarks;
  private reader!: LogReader;
  /** Entries before the window that polls reaching back to them read, once for all of them. */
  private readonly older: OlderEntries;
  /** The catch-up read under way, and the one that follows it for the polls that came meanwhile. */
  private catching: Promise<void> | null = null;
  private catchingNext: Promise<void> | null = null;

  private constructor(
    private readonly link: RedisLink,
    private readonly limits: QueueLimits,
    private readonly hooks: MessageEventHooks,
    private readonly onError: (error: unknown) => void,
    private readonly report: PublicationReport,
    private readonly window: LogWindow,
  ) {
    this.refreshMs = Math.min(limits.idleTimeoutMs / 4, 30_000);
    this.marks = new CommitMarks(link, this, report, limits.livenessMs, limits.hangMs);
    this.older = new OlderEntries(link.command, link.key('log'), link.key('trimmed'));
    this.waiters = new Waiters((waiter, events, ended) => this.answer(waiter, events, ended));
    this.heartbeats = new HeartbeatList(limits.heartbeatMs, (poll) =>
      this.heartbeatDue(poll as Waiter),
    );
    this.publisher = new LogPublisher(
      link,
      limits,
      report,
      () => this.window.last,
      (ids, realms, indexes) => this.drop(ids, realms, indexes),
    );
  }

  /**
   * A store on `link`, following the log from its end. `onError` hears of
   * failed reads; `report` of publications delayed, delivered late and given up.
   */
  static async open(
    link: RedisLink,
    limits: QueueLimits,
    hooks: MessageEventHooks = noMessageHooks,
    onError: (error: unknown) => void = () => undefined,
    report: PublicationReport = () => undefined,
  ): Promise<RedisQueueStore> {
    defineScripts(link.command);
    const last = (await link.command.xrevrange(
      link.key('log'),
      '+',
      '-',
      'COUNT',
      1,
    )) as RawEntry[];
    const window = new LogWindow(last.length > 0 ? eventId(last[0][0]) : 0, {
      maxEntries: WINDOW_ENTRIES,
      maxAgeMs: Math.min(WINDOW_MS, retentionMs(limits)),
    });
    const store = new RedisQueueStore(link, limits, hooks, onError, report, window);
    const connection = await link.blockingConnection((error) => onError(error));
    store.reader = new LogReader(
      connection,
      link.key('log'),
      window,
      (entries) => store.follow(entries),
      onError,
    );
    store.reader.start();
    // Undelivered publications need not wait for the next attempt once Redis is back.
    link.onReconnect(() => store.publisher.retryNow());
    await store.marks.start();
    store.every(Math.min(1000, limits.idleTimeoutMs / 8), () => store.touch());
    store.every(Math.min(10_000, limits.idleTimeoutMs / 4), () => store.maintain());
    return store;
  }

  async create(options: QueueOptions): Promise<NewQueue> {
    const id = randomUUID();
    const reg = (await runScript(
      this.link.command,
      'queueCreate',
      [
        this.link.key('log'),
        this.queueKey(id),
        this.link.key(`u:${options.userId}`),
        this.link.key(`rp:${options.realmId}`),
        this.link.key('seen'),
        this.link.key('trimmed'),
      ],
      [
        options.userId,
        options.realmId,
        JSON.stringify(options),
        id,
        options.allPublicStreams ? '1' : '0',
        Date.now(),
        this.link.processId,
      ],
    )) as string;
    const position = eventId(reg);
    this.remember({
      id,
      options,
      reg: position,
      held: position,
      gone: false,
      seenAt: Date.now(),
      quiet: null,
    });
    return { id, lastEventId: -1 };
  }

  async delete(queueId: string, userId: number): Promise<boolean> {
    const deleted = await runScript(
      this.link.command,
      'queueDelete',
      [this.link.key('log'), this.queueKey(queueId)],
      [userId, this.link.prefix, queueId, this.link.processId],
    );
    if (deleted === 1) this.forget(queueId);
    return deleted === 1;
  }

  async poll({
    queueId,
    userId,
    lastEventId,
    dontBlock,
    after = lastEventId,
    follow = false,
  }: PollRequest): Promise<PollAnswer | ParkedPoll> {
    if (this.draining) {
      if (follow) return null;
      dontBlock = true;
    }
    let queue = this.cache.get(queueId) ?? null;
    if (!queue || (!dontBlock && queue.held === null)) {
      queue = await this.openQueue(queueId, userId, !dontBlock);
      if (!queue) return null;
    }
    if (queue.options.userId !== userId) return null;
    // A poll that answers at once sees every entry written before it: another
    // process's write may be in the log but not read here yet.
    if (dontBlock) await this.catchUp();
    const position = Math.max(after, queue.reg);
    const { quiet } = queue;
    const from = quiet && position >= quiet.from && position < quiet.to ? quiet.to : position;
    // Its entries from before the window, up to where it starts (which may move on meanwhile).
    let older: LogEntry[] = [];
    let since = from;
    while (since < this.window.start) {
      const upTo = this.window.start;
      const more = await this.older.between(queue, since, upTo);
      if (more === 'trimmed') {
        await this.drop([queueId], [], []);
        return null;
      }
      if (more === 'dropped') {
        this.forget(queueId);
        return null;
      }
      older = older.concat(more);
      since = upTo;
    }
    // From here on nothing waits: no entry read meanwhile can be missed.
    if (queue.gone) return null;
    this.polled.add(queue);
    const recent = this.window.pick(queue, since);
    if (recent === 'dropped') {
      this.forget(queueId);
      return null;
    }
    const events = this.eventsOf(queue, older.concat(recent));
    queue.quiet = events.length === 0 ? { from: position, to: this.window.last } : null;
    if (events.length > 0 || dontBlock) return events;
    if (this.draining) return follow ? null : events;
    const waiter = new Waiter(this, queue, position, follow);
    this.waiters.add(waiter);
    this.heartbeats.add(waiter);
    return waiter;
  }

  publish(publication: Publication, userIds: Iterable<number>): Promise<void> {
    return new Promise((done) =>
      this.publisher.enqueue({ kind: 'users', publication, userIds: [...userIds], done }),
    );
  }

  publishToRealm(realmId: number, publication: Publication, except: number[]): Promise<void> {
    return new Promise((done) =>
      this.publisher.enqueue({ kind: 'realm', publication, realmId, except, done }),
    );
  }

  publishToPublicQueues(
    realmId: number,
    publication: Publication,
    exceptUserIds: Iterable<number>,
  ): Promise<void> {
    return new Promise((done) =>
      this.publisher.enqueue({
        kind: 'public',
        publication,
        realmId,
        except: [...new Set(exceptUserIds)],
        done,
      }),
    );
  }

  drain(): void {
    this.draining = true;
    this.waiters.endAll();
  }

  /**
   * The queues of the whole deployment and the entries of the log (the
   * events held for every queue), counted in Redis when asked, and the polls
   * waiting in this process.
   */
  async stats(): Promise<QueueStats> {
    const [queues, events] = await Promise.all([
      this.link.command.zcard(this.link.key('seen')),
      this.link.command.xlen(this.link.key('log')),
    ]);
    return { queues, events, waitingPolls: this.waitingPolls() };
  }

  waitingPolls(): number {
    return this.waiters.size;
  }

  publicationStats(): PublicationStats {
    return this.publisher.stats(this.marks.stats);
  }

  /** Whether every publication so far is in the log, and every queue that missed one dropped. */
  idle(): boolean {
    return this.publisher.idle();
  }

  /** Drops every event queue of the deployment (their next poll answers BAD_EVENT_QUEUE_ID); answers how many. */
  async dropAllQueues(): Promise<number> {
    const ids = await this.link.command.zrange(this.link.key('seen'), 0, -1);
    let dropped = 0;
    for (let i = 0; i < ids.length; i += DROP_BATCH)
      dropped += await this.drop(ids.slice(i, i + DROP_BATCH), [], []);
    return dropped;
  }

  /** Drops the queues nobody has polled for longer than the idle timeout, and trims the log. */
  async sweep(now = Date.now()): Promise<void> {
    await Promise.all([
      runScript(
        this.link.command,
        'queuesDrop',
        [this.link.key('log')],
        [this.link.prefix, this.link.processId, now - this.limits.idleTimeoutMs, 0, 0],
      ),
      runScript(
        this.link.command,
        'logTrim',
        [this.link.key('log'), this.link.key('trimmed')],
        [streamId((now - retentionMs(this.limits)) * 1000)],
      ),
    ]);
  }

  async close(): Promise<void> {
    this.drain();
    for (const timer of this.timers) clearInterval(timer);
    await this.publisher.close();
    // Events still owed leave the mark standing, for another process to drop their queues.
    await this.marks.close();
    const left = this.publisher.left();
    if (
      left.publications + left.queuesNotDropped + left.realmsNotDropped + left.indexesNotDropped >
      0
    )
      this.report('event publications lost at shutdown', left);
    await this.reader.close();
  }

  /**
   * Answers a poll (once) and forgets it; `ended` when it is over for good
   * (replaced, its queue gone, shutdown), which a stream's poll answers as null.
   */
  answer(waiter: Waiter | undefined, events: QueuedEvent[], ended = false): void {
    if (!waiter || waiter.settled) return;
    this.heartbeats.remove(waiter);
    this.waiters.remove(waiter);
    waiter.settle(ended && waiter.follow ? null : events);
  }

  /** Runs `task` every `ms`, reporting its failures. */
  private every(ms: number, task: () => Promise<void>): void {
    const timer = setInterval(() => void task().catch(this.onError), Math.max(10, ms));
    timer.unref();
    this.timers.push(timer);
  }

  private queueKey(queueId: string): string {
    return this.link.key(`q:{${queueId}}`);
  }

  private remember(queue: CachedQueue): void {
    if (this.cache.size >= OPTIONS_CACHE_SIZE) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(queue.id, queue);
  }

  /**
   * Reads a queue for its first poll in this process, and for a poll that
   * waits takes it (the holder's waiting poll elsewhere is answered).
   */
  private async openQueue(
    queueId: string,
    userId: number,
    take: boolean,
  ): Promise<CachedQueue | null> {
    const reply = (await runScript(
      this.link.command,
      'queueOpen',
      [this.link.key('log'), this.queueKey(queueId)],
      [userId, this.link.processId, take ? '1' : '0', queueId],
    )) as string[];
    // Gone, or another user's: a gone queue's entry in the log tells every process.
    if (reply.length === 0) return null;
    const [options, reg, taken] = reply;
    let queue = this.cache.get(queueId);
    if (!queue) {
      queue = {
        id: queueId,
        options: JSON.parse(options) as QueueOptions,
        reg: eventId(reg),
        held: null,
        gone: false,
        seenAt: 0,
        quiet: null,
      };
      this.remember(queue);
    }
    if (take) queue.held = taken ? eventId(taken) : Math.max(queue.held ?? -1, this.window.last);
    return queue;
  }

  /**
   * Reads the entries written and not read yet (a poll that answers at once
   * must see them). Polls that come while a read is under way share the next
   * one: the read under way may have been sent before they came.
   */
  private catchUp(): Promise<void> {
    if (!this.catching) {
      this.catching = this.readUnread().finally(() => (this.catching = null));
      return this.catching;
    }
    return (this.catchingNext ??= this.catching
      .catch(() => undefined)
      .then(() => {
        this.catchingNext = null;
        return this.catchUp();
      }));
  }

  private async readUnread(): Promise<void> {
    const raw = (await this.link.command.xrange(
      this.link.key('log'),
      `(${streamId(this.window.last)}`,
      '+',
    )) as RawEntry[];
    this.reader.ingest(raw);
  }

  /**
   * The events of `queue` from `entries` (publications that reach it), the
   * last maxEvents of them as a queue keeps at most that many.
   */
  private eventsOf(queue: CachedQueue, entries: LogEntry[]): QueuedEvent[] {
    const events: QueuedEvent[] = [];
    for (const entry of entries) {
      if (entry.data.k !== 'p') continue;
      const body = eventForQueue(entry.data.p, queue.options, entryHooks(entry, this.hooks));
      if (body) events.push(queuedEvent(body, entry.id));
    }
    const max = this.limits.maxEvents;
    return events.length > max ? events.slice(events.length - max) : events;
  }

  /** Answers this process's waiting polls from new entries of the log, in order. */
  private follow(entries: LogEntry[]): void {
    const answering = new Set<Waiter>();
    for (const entry of entries) {
      const { data } = entry;
      if (data.k === 'p') {
        for (const waiter of this.waiters.reached(entry)) {
          if (entry.id <= waiter.after) continue;
          const body = eventForQueue(data.p, waiter.queue.options, entryHooks(entry, this.hooks));
          if (!body) continue;
          (waiter.events ??= []).push(queuedEvent(body, entry.id));
          answering.add(waiter);
        }
      } else if (data.k === 'd') {
        for (const id of data.q) this.forget(id);
      } else if (data.k === 't') {
        if (data.h !== this.link.processId) this.lost(data.q, entry.id);
      } else {
        for (const id of data.q) this.beat(this.waiters.of(id), entry.id);
      }
    }
    for (const waiter of answering) this.answer(waiter, waiter.events ?? []);
  }

  /** Another process's poll took the queue after this one's: its waiting poll here is over. */
  private lost(queueId: string, entryId: number): void {
    const waiter = this.waiters.of(queueId);
    const queue = this.cache.get(queueId) ?? waiter?.queue;
    if (!queue || queue.held === null || queue.held > entryId) return;
    queue.held = null;
    this.answer(waiter, [], true);
  }

  /** A heartbeat entry: the waiting poll it was for is answered with a heartbeat carrying its ID. */
  private beat(waiter: Waiter | undefined, entryId: number): void {
    if (!waiter || !waiter.heartbeat || waiter.events) return;
    this.answer(waiter, entryId > waiter.after ? [{ id: entryId, type: 'heartbeat' }] : []);
  }

  /** Forgets a deleted or dropped queue and answers its waiting poll. */
  private forget(queueId: string): void {
    const waiter = this.waiters.of(queueId);
    const queue = this.cache.get(queueId) ?? waiter?.queue;
    if (queue) queue.gone = true;
    this.cache.delete(queueId);
    this.answer(waiter, [], true);
  }

  /**
   * A poll waited the heartbeat interval: a stream's poll is answered with
   * nothing; another's queue goes into the next heartbeat entry, whose ID
   * its heartbeat carries (so that it skips no event not yet sent).
   */
  private heartbeatDue(waiter: Waiter): void {
    if (waiter.follow) return this.answer(waiter, []);
    waiter.heartbeat = true;
    if (this.beats.size === 0) setImmediate(() => void this.writeBeats());
    this.beats.add(waiter.queueId);
  }

  private async writeBeats(): Promise<void> {
    const ids = [...this.beats];
    this.beats = new Set();
    try {
      await runScript(
        this.link.command,
        'logAppend',
        [this.link.key('log')],
        [this.link.processId, '', '', JSON.stringify({ k: 'h', q: ids })],
      );
    } catch (error) {
      this.onError(error);
      for (const id of ids) this.answer(this.waiters.of(id), []);
    }
  }

  /**
   * Records in `seen` when the queues polled here (and those whose polls
   * wait here) were last polled, when their record is older than the
   * refresh interval: one command for all of them.
   */
  private async touch(): Promise<void> {
    const now = Date.now();
    const stale = (queue: CachedQueue) => now - queue.seenAt >= this.refreshMs;
    const due = new Set([...this.polled].filter(stale));
    for (const waiter of this.waiters.all()) if (stale(waiter.queue)) due.add(waiter.queue);
    this.polled = new Set();
    if (due.size === 0) return;
    const args: (string | number)[] = [];
    for (const queue of due) {
      queue.seenAt = now;
      args.push(now, queue.id);
    }
    await this.link.command.zadd(this.link.key('seen'), 'XX', 'GT', ...args);
  }

  /** Drops idle queues and trims the log (see sweep), and lets go of old entries in memory. */
  private async maintain(): Promise<void> {
    this.window.tidy();
    this.older.tidy();
    await this.sweep();
  }

  /** Drops queues by ID and by index key; answers how many. */
  private async drop(ids: string[], realms: number[], indexes: string[]): Promise<number> {
    return (await runScript(
      this.link.command,
      'queuesDrop',
      [this.link.key('log')],
      [
        this.link.prefix,
        this.link.processId,
        '',
        ids.length,
        ...ids,
        realms.length,
        ...realms,
        ...indexes,
      ],
    )) as number;
  }
}

/** How long the log keeps its entries: long enough for any queue not yet expired. */
function retentionMs(limits: QueueLimits): number {
  return limits.idleTimeoutMs + limits.heartbeatMs + RETENTION_SLACK_MS;
}

// Event queues for many server processes sharing a Redis (REDIS_URL): any
// process registers, polls, acknowledges and deletes any queue, and losing a
// process loses no queue.
//
// Redis holds each queue's record (who registered it, with which options, and
// where in the shared log it begins) and one log of what happened, a Redis
// Stream (stream.ts): a committed action appends its publications there once,
// with their recipients, whatever the number of queues. Every process reads
// the log as it grows, keeps its recent entries in memory, and shapes each
// entry for the queues it holds, as the memory store does; their waiting
// polls are callbacks answered from memory. A process that is asked about a
// queue it does not hold reads the queue's record and rebuilds it from the
// log, from the queue's creation on: every process numbers a queue's events
// alike, so event IDs are the same whichever process answers.
//
// Nothing is silently missed: a publication that cannot be appended (after
// retrying for a while) marks the queues of its recipients lost, here at once
// and in the log when Redis answers again, so that their next poll answers
// BAD_EVENT_QUEUE_ID and the client registers again. A process that dies
// while it may hold committed events not yet logged leaves a claim that
// lapses; the next process to notice logs that every queue may have missed
// events.
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
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
  type QueueStats,
  type QueuedEvent,
} from './queues';
import type { RedisLink } from './redis';
import { defineScripts, runScript } from './redis-scripts';
import {
  isAfter,
  parseEntries,
  type PositionedEntry,
  type StreamEntry,
  type StreamItem,
} from './stream';

/** Entries of the log each process keeps in memory, to build queues that began recently. */
const RING_SIZE = 5_000;
/** Entries the log keeps (about): a queue older than that cannot be rebuilt elsewhere and is lost. */
export const LOG_LENGTH = 20_000;
/** Entries read at once. */
const PAGE = 1_000;
/** How long a publication is retried before the queues it was for are marked lost. */
const PUBLISH_RETRY_MS = 2_000;
/** How long a process's claim to be publishing lasts unless renewed. */
const CLAIM_MS = 10_000;
/** After this long without publishing, a process withdraws its claim. */
const CLAIM_IDLE_MS = 1_000;
/** How often each process looks for claims that lapsed. */
const REAP_MS = 2_000;

/** A queue this process holds: its events, numbered as every process numbers them. */
class HeldQueue {
  events: QueuedEvent[] = [];
  /** ID of the last event added; -1 before the first. */
  lastEventId = -1;
  waiter: ((events: QueuedEvent[] | null) => void) | null = null;
  lastPolled = Date.now();
  /** When this process last renewed the record's expiry. */
  touched = Date.now();
  /** The queue may have missed an event: its polls answer BAD_EVENT_QUEUE_ID. */
  lost = false;
  /** Receiving the log's entries as this process reads them. */
  live = false;
  /** This process is the queue's recorded waiter (see pollClaim). */
  waiterHere = false;

  constructor(
    readonly id: string,
    readonly options: QueueOptions,
    /** The position of the log entry announcing the queue. */
    readonly start: string,
  ) {}
}

/** A publication waiting for the next append, with its caller. */
interface Pending {
  item: StreamItem;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The event queues of every process: records and a shared log in Redis, events shaped in memory. */
export class RedisQueueStore implements EventQueueStore {
  private readonly held = new Map<string, HeldQueue>();
  private readonly byUser = new Map<number, Set<HeldQueue>>();
  private readonly publicByRealm = new Map<number, Set<HeldQueue>>();
  /** Queues announced after the last entry read: they go live when the reader reaches them. */
  private awaiting: HeldQueue[] = [];
  private readonly loading = new Map<string, Promise<HeldQueue | null>>();
  /** The last entries read, in order, and the position just before the first of them. */
  private ring: PositionedEntry[] = [];
  private ringFloor = '0-0';
  /** The position of the last entry read. */
  private readerPos = '0-0';
  /** Tokens of the publications in the ring: an append retried after all does not count twice. */
  private readonly seen = new Set<string>();
  private reader: Redis | null = null;
  private batch: Pending[] = [];
  private flushQueued = false;
  private flushes: Promise<void> = Promise.resolve();
  private appended = 0;
  /** Lost-queue entries not yet in the log (Redis did not answer). */
  private pendingLost: StreamEntry[] = [];
  private lostRetry: NodeJS.Timeout | null = null;
  private claimRenewAt = 0;
  private claimIdle: NodeJS.Timeout | null = null;
  private pendingWakes = new Set<HeldQueue>();
  private readonly timers: NodeJS.Timeout[] = [];
  /** Publications committed but never appended to the log. */
  private unpublished = 0;
  private draining = false;
  private closed = false;
  private readonly recordMs: number;

  private constructor(
    private readonly link: RedisLink,
    private readonly limits: QueueLimits,
    private readonly hooks: MessageEventHooks,
    private readonly onError: (error: unknown) => void,
  ) {
    this.recordMs = limits.idleTimeoutMs + limits.heartbeatMs;
  }

  /** A store on `link`, reading the shared log from its current end. */
  static async open(
    link: RedisLink,
    limits: QueueLimits,
    hooks: MessageEventHooks = noMessageHooks,
    onError: (error: unknown) => void = () => undefined,
  ): Promise<RedisQueueStore> {
    const store = new RedisQueueStore(link, limits, hooks, onError);
    defineScripts(link.command);
    const last = await link.command.xrevrange(store.logKey, '+', '-', 'COUNT', 1);
    store.readerPos = store.ringFloor = last[0]?.[0] ?? '0-0';
    store.reader = link.command.duplicate({ enableAutoPipelining: false });
    // Its failures show in the read loop, and the command connection's are logged.
    store.reader.on('error', () => undefined);
    // A poll on another process replaced the one waiting here.
    await link.subscribe(`wake:${link.processId}`, (queueId) => {
      const queue = store.held.get(queueId);
      if (!queue) return;
      queue.waiterHere = false;
      store.wake(queue, []);
    });
    link.onReconnect(() => {
      for (const queue of store.held.values()) queue.waiterHere = false;
    });
    void store.read();
    store.timers.push(
      setInterval(() => store.sweep(), Math.min(60_000, limits.idleTimeoutMs)).unref(),
      setInterval(() => store.reap(), REAP_MS).unref(),
    );
    return store;
  }

  async create(options: QueueOptions): Promise<NewQueue> {
    const id = randomUUID();
    const start = (await runScript(
      this.link.command,
      'queueCreate',
      [this.queueKey(id), this.logKey],
      [
        options.userId,
        options.realmId,
        JSON.stringify(options),
        this.limits.idleTimeoutMs,
        LOG_LENGTH,
        JSON.stringify({ k: 'new', q: id } satisfies StreamEntry),
      ],
    )) as string;
    await this.adopt(new HeldQueue(id, options, start));
    return { id, lastEventId: -1 };
  }

  async delete(queueId: string, userId: number): Promise<boolean> {
    const deleted = await runScript(
      this.link.command,
      'queueDelete',
      [this.queueKey(queueId), this.logKey],
      [userId, LOG_LENGTH, JSON.stringify({ k: 'del', q: queueId } satisfies StreamEntry)],
    );
    const queue = this.held.get(queueId);
    if (queue && queue.options.userId === userId) this.remove(queue, []);
    return deleted === 1;
  }

  poll(request: PollRequest): Promise<QueuedEvent[] | null> {
    const queue = this.held.get(request.queueId);
    if (queue) return this.pollHeld(queue, request);
    return this.load(request.queueId).then((found) =>
      found ? this.pollHeld(found, request) : null,
    );
  }

  publish(publication: Publication, userIds: Iterable<number>): Promise<void> {
    const users = [...userIds];
    if (users.length === 0) return Promise.resolve();
    return this.enqueue({ p: publication, u: users });
  }

  publishToPublicQueues(
    realmId: number,
    publication: Publication,
    exceptUserIds: Iterable<number>,
  ): Promise<void> {
    return this.enqueue({ p: publication, r: realmId, x: [...exceptUserIds] });
  }

  drain(): void {
    this.draining = true;
    for (const queue of this.held.values()) this.wake(queue, queue.events.slice());
  }

  /**
   * The queues of the whole deployment (one scan of their records, or those
   * held here while Redis is unreachable), and the events and waiting polls
   * of the queues this process holds.
   */
  async stats(): Promise<QueueStats> {
    let queues = 0;
    try {
      let cursor = '0';
      do {
        const [next, keys] = await this.link.command.scan(
          cursor,
          'MATCH',
          this.link.key('q:{*}'),
          'COUNT',
          1000,
        );
        cursor = next;
        queues += keys.length;
      } while (cursor !== '0');
    } catch {
      queues = this.held.size; // Redis is unreachable: what this process knows
    }
    let events = 0;
    let waitingPolls = 0;
    for (const queue of this.held.values()) {
      events += queue.events.length;
      if (queue.waiter) waitingPolls++;
    }
    return { queues, events, waitingPolls, unpublished: this.unpublished };
  }

  /** Forgets the queues nobody polled here for the idle timeout (Redis expires their records itself). */
  sweep(now = Date.now()): void {
    for (const queue of this.held.values())
      if (!queue.waiter && now - queue.lastPolled > this.limits.idleTimeoutMs)
        this.remove(queue, []);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.lostRetry) clearTimeout(this.lostRetry);
    this.drain();
    await this.flushes;
    await this.withdrawClaim();
    this.reader?.disconnect();
  }

  private get logKey(): string {
    return this.link.key('log');
  }

  private queueKey(queueId: string): string {
    return this.link.key(`q:{${queueId}}`);
  }

  // --- Polls -------------------------------------------------------------

  private pollHeld(
    queue: HeldQueue,
    { userId, lastEventId, dontBlock, onAbort }: PollRequest,
  ): Promise<QueuedEvent[] | null> {
    if (queue.options.userId !== userId || queue.lost) return Promise.resolve(null);
    const now = Date.now();
    queue.lastPolled = now;
    if (now - queue.touched > this.limits.idleTimeoutMs / 4) {
      queue.touched = now;
      this.link.command.pexpire(this.queueKey(queue.id), this.recordMs).catch(this.onError);
    }
    if (queue.events.length > 0 && queue.events[0].id <= lastEventId)
      queue.events = queue.events.filter((e) => e.id > lastEventId);
    if (queue.events.length > 0 || dontBlock || this.draining)
      return Promise.resolve(queue.events.slice());
    this.wake(queue, []); // a newer poll replaces an older one
    if (!queue.waiterHere) {
      queue.waiterHere = true;
      runScript(
        this.link.command,
        'pollClaim',
        [this.queueKey(queue.id)],
        [this.link.processId, this.link.key('wake:'), queue.id],
      ).catch((error) => {
        queue.waiterHere = false;
        this.onError(error);
      });
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.heartbeat(queue, waiter), this.limits.heartbeatMs);
      const waiter = (events: QueuedEvent[] | null) => {
        clearTimeout(timer);
        queue.waiter = null;
        queue.lastPolled = Date.now();
        resolve(events);
      };
      queue.waiter = waiter;
      onAbort?.(() => {
        if (queue.waiter !== waiter) return;
        clearTimeout(timer);
        queue.waiter = null;
        queue.lastPolled = Date.now();
      });
    });
  }

  /** Logs a heartbeat for a poll that waited the interval; its answer comes back through the log. */
  private heartbeat(queue: HeldQueue, waiter: HeldQueue['waiter']): void {
    const entry: StreamEntry = { k: 'hb', q: queue.id };
    this.link.command
      .xadd(this.logKey, 'MAXLEN', '~', LOG_LENGTH, '*', 'e', JSON.stringify(entry))
      .catch((error) => {
        this.onError(error);
        if (queue.waiter === waiter) this.wake(queue, queue.events.slice());
      });
  }

  /** The queue of this ID, from its record and the log, or null when there is none. */
  private load(queueId: string): Promise<HeldQueue | null> {
    let loaded = this.loading.get(queueId);
    if (!loaded) {
      loaded = (async () => {
        const record = await this.link.command.hgetall(this.queueKey(queueId));
        const known = this.held.get(queueId);
        if (known) return known;
        if (!record.start || !record.opts) return null;
        const queue = new HeldQueue(queueId, JSON.parse(record.opts) as QueueOptions, record.start);
        if (this.pendingLost.some((entry) => this.concerns(entry, queue))) queue.lost = true;
        return (await this.adopt(queue)) ? queue : null;
      })().finally(() => this.loading.delete(queueId));
      this.loading.set(queueId, loaded);
    }
    return loaded;
  }

  /**
   * Makes a queue live here: replays the entries after its start up to the
   * last one read (from memory, or from Redis for the older ones), then lets
   * the reader bring the rest. False when the queue turns out deleted.
   */
  private async adopt(queue: HeldQueue): Promise<boolean> {
    this.held.set(queue.id, queue);
    if (isAfter(queue.start, this.readerPos)) {
      this.awaiting.push(queue);
      return true;
    }
    let cursor = queue.start;
    let first = true;
    const tokens = new Set<string>();
    while (isAfter(this.ringFloor, cursor)) {
      const rows = await this.link.command.xrange(
        this.logKey,
        first ? cursor : `(${cursor}`,
        '+',
        'COUNT',
        PAGE,
      );
      const entries = parseEntries(rows);
      if (first) {
        // The announcement is gone: the log was trimmed past the queue's beginning.
        if (entries[0]?.id !== queue.start) {
          queue.lost = true;
          break;
        }
        entries.shift();
        first = false;
      }
      let progressed = false;
      for (const entry of entries) {
        if (isAfter(entry.id, this.readerPos)) break;
        if (!this.replay(queue, entry, tokens)) return false;
        cursor = entry.id;
        progressed = true;
      }
      // Entries between the ones read and those in memory were trimmed meanwhile.
      if (!progressed && isAfter(this.ringFloor, cursor)) {
        queue.lost = true;
        break;
      }
    }
    for (const entry of this.ring)
      if (isAfter(entry.id, cursor) && !this.replay(queue, entry, tokens)) return false;
    this.goLive(queue);
    return true;
  }

  /** Applies one entry to one queue being rebuilt; false when it deletes the queue. */
  private replay(queue: HeldQueue, { entry }: PositionedEntry, tokens: Set<string>): boolean {
    switch (entry.k) {
      case 'pub': {
        if (tokens.has(entry.t)) return true;
        tokens.add(entry.t);
        const { userId, realmId, allPublicStreams } = queue.options;
        for (const item of entry.items) {
          const mine =
            'u' in item
              ? item.u.includes(userId)
              : allPublicStreams && item.r === realmId && !item.x.includes(userId);
          if (mine) this.deliver(queue, item.p, this.hooks);
        }
        return true;
      }
      case 'hb':
        if (entry.q === queue.id) this.append(queue, { type: 'heartbeat' });
        return true;
      case 'del':
        if (entry.q !== queue.id) return true;
        this.remove(queue, []);
        return false;
      case 'lost':
        if (this.concerns(entry, queue)) queue.lost = true;
        return true;
      case 'new':
        return true;
    }
  }

  /** Whether a lost-queue entry covers `queue`. */
  private concerns(entry: StreamEntry, queue: HeldQueue): boolean {
    if (entry.k !== 'lost') return false;
    const { userId, realmId, allPublicStreams } = queue.options;
    return (
      entry.all === true ||
      (entry.users?.includes(userId) ?? false) ||
      (allPublicStreams && (entry.realms?.includes(realmId) ?? false))
    );
  }

  private goLive(queue: HeldQueue): void {
    if (this.held.get(queue.id) !== queue || queue.live) return;
    queue.live = true;
    const { userId, realmId, allPublicStreams } = queue.options;
    addTo(this.byUser, userId, queue);
    if (allPublicStreams) addTo(this.publicByRealm, realmId, queue);
    if (queue.events.length > 0 && queue.waiter) this.scheduleWake(queue);
  }

  /** Forgets a queue here, answering its waiting poll with `events`. */
  private remove(queue: HeldQueue, events: QueuedEvent[] | null): void {
    if (this.held.get(queue.id) === queue) this.held.delete(queue.id);
    removeFrom(this.byUser, queue.options.userId, queue);
    removeFrom(this.publicByRealm, queue.options.realmId, queue);
    queue.live = false;
    this.wake(queue, events);
  }

  // --- Reading the log ---------------------------------------------------

  /** Reads the log as it grows, for as long as the store is open. */
  private async read(): Promise<void> {
    let backoff = 100;
    while (!this.closed) {
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await this.reader!.xread(
          'COUNT',
          PAGE,
          'BLOCK',
          5000,
          'STREAMS',
          this.logKey,
          this.readerPos,
        )) as [string, [string, string[]][]][] | null;
        backoff = 100;
      } catch (error) {
        if (this.closed) return;
        this.onError(error);
        await new Promise((resolve) => setTimeout(resolve, backoff).unref());
        backoff = Math.min(backoff * 2, 2000);
        continue;
      }
      if (reply && !this.closed) this.receive(parseEntries(reply[0][1]));
    }
  }

  /** Applies entries just read to the live queues. */
  private receive(entries: PositionedEntry[]): void {
    for (const positioned of entries) {
      this.readerPos = positioned.id;
      const { entry } = positioned;
      if (entry.k === 'pub') {
        if (this.seen.has(entry.t)) continue;
        this.seen.add(entry.t);
      }
      this.ring.push(positioned);
      this.apply(entry);
      if (this.awaiting.length > 0) this.wakeAwaiting();
    }
    if (this.ring.length > RING_SIZE) {
      const cut = this.ring.splice(0, this.ring.length - RING_SIZE);
      this.ringFloor = cut[cut.length - 1].id;
      for (const { entry } of cut) if (entry.k === 'pub') this.seen.delete(entry.t);
    }
  }

  /** Queues announced at or before the last entry read go live. */
  private wakeAwaiting(): void {
    const still: HeldQueue[] = [];
    for (const queue of this.awaiting) {
      if (isAfter(queue.start, this.readerPos)) still.push(queue);
      else this.goLive(queue);
    }
    this.awaiting = still;
  }

  /** Applies one entry to every live queue it concerns. */
  private apply(entry: StreamEntry): void {
    switch (entry.k) {
      case 'pub':
        for (const item of entry.items) {
          const hooks = sharedFinalizing(item.p, this.hooks);
          if ('u' in item) {
            for (const userId of item.u) {
              const mine = this.byUser.get(userId);
              if (mine) for (const queue of mine) this.deliver(queue, item.p, hooks);
            }
          } else {
            const queues = this.publicByRealm.get(item.r);
            if (!queues) continue;
            const except = new Set(item.x);
            for (const queue of queues)
              if (!except.has(queue.options.userId)) this.deliver(queue, item.p, hooks);
          }
        }
        return;
      case 'hb': {
        const queue = this.held.get(entry.q);
        if (queue?.live) {
          this.append(queue, { type: 'heartbeat' });
          if (queue.waiter) this.scheduleWake(queue);
        }
        return;
      }
      case 'del': {
        const queue = this.held.get(entry.q);
        if (queue?.live) this.remove(queue, []);
        return;
      }
      case 'lost':
        for (const queue of this.held.values())
          if (queue.live && this.concerns(entry, queue)) this.lose(queue);
        return;
      case 'new':
        return;
    }
  }

  private deliver(queue: HeldQueue, publication: Publication, hooks: MessageEventHooks): void {
    const body = eventForQueue(publication, queue.options, hooks);
    if (!body) return;
    this.append(queue, body);
    if (queue.waiter && queue.live) this.scheduleWake(queue);
  }

  private append(queue: HeldQueue, body: EventBody): void {
    queue.lastEventId += 1;
    queue.events.push(queuedEvent(body, queue.lastEventId));
    if (queue.events.length > this.limits.maxEvents)
      queue.events.splice(0, queue.events.length - this.limits.maxEvents);
  }

  /** Marks a queue lost, answering its waiting poll with BAD_EVENT_QUEUE_ID. */
  private lose(queue: HeldQueue): void {
    queue.lost = true;
    queue.events = [];
    this.wake(queue, null);
  }

  /** Answers the queue's waiting poll on the next turn of the event loop, with events published together. */
  private scheduleWake(queue: HeldQueue): void {
    if (this.pendingWakes.size === 0) setImmediate(() => this.flushWakes());
    this.pendingWakes.add(queue);
  }

  private flushWakes(): void {
    const queues = [...this.pendingWakes];
    this.pendingWakes.clear();
    for (const queue of queues) if (queue.waiter) this.wake(queue, queue.events.slice());
  }

  private wake(queue: HeldQueue, events: QueuedEvent[] | null): void {
    queue.waiter?.(events);
  }

  // --- Publishing --------------------------------------------------------

  /** Adds a publication to the next append; one append runs at a time, in order. */
  private enqueue(item: StreamItem): Promise<void> {
    return new Promise((resolve, reject) => {
      this.batch.push({ item, resolve, reject });
      if (this.flushQueued) return;
      this.flushQueued = true;
      this.flushes = this.flushes.then(() => {
        this.flushQueued = false;
        const batch = this.batch;
        this.batch = [];
        return this.append1(batch).then(
          () => batch.forEach((p) => p.resolve()),
          (error) => batch.forEach((p) => p.reject(error)),
        );
      });
    });
  }

  /**
   * Appends a batch of publications to the log as one entry, retrying for a
   * while; when Redis does not take it, the queues it was for are lost.
   */
  private async append1(batch: Pending[]): Promise<void> {
    const items = batch.map((p) => p.item);
    const entry: StreamEntry = {
      k: 'pub',
      t: `${this.link.processId}:${++this.appended}`,
      items,
    };
    const json = JSON.stringify(entry);
    const deadline = Date.now() + PUBLISH_RETRY_MS;
    let delay = 50;
    for (;;) {
      this.claim();
      try {
        await withTimeout(
          this.link.command.xadd(this.logKey, 'MAXLEN', '~', LOG_LENGTH, '*', 'e', json),
          Math.max(deadline - Date.now(), 100),
        );
        return;
      } catch (error) {
        if (Date.now() + delay >= deadline || this.closed) {
          this.markLost(items);
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }

  /** Marks lost the queues a publication never reached: here at once, everywhere once logged. */
  private markLost(items: StreamItem[]): void {
    this.unpublished += items.length;
    const users = new Set<number>();
    const realms = new Set<number>();
    for (const item of items) {
      if ('u' in item) for (const userId of item.u) users.add(userId);
      else realms.add(item.r);
    }
    const entry: StreamEntry = { k: 'lost', users: [...users], realms: [...realms] };
    for (const queue of this.held.values()) if (this.concerns(entry, queue)) this.lose(queue);
    this.pendingLost.push(entry);
    this.logLost();
  }

  /** Appends the lost-queue entries Redis did not take yet, retrying until it does. */
  private logLost(): void {
    if (this.lostRetry || this.pendingLost.length === 0) return;
    const entries = this.pendingLost.slice();
    const pipe = this.link.command.pipeline();
    for (const entry of entries)
      pipe.xadd(this.logKey, 'MAXLEN', '~', LOG_LENGTH, '*', 'e', JSON.stringify(entry));
    this.lostRetry = setTimeout(() => {
      this.lostRetry = null;
      this.logLost();
    }, 500);
    this.lostRetry.unref();
    pipe.exec().then(
      (results) => {
        if (results?.some(([error]) => error)) return;
        this.pendingLost = this.pendingLost.filter((entry) => !entries.includes(entry));
      },
      () => undefined,
    );
  }

  /**
   * Claims, in Redis, to be a process that may hold committed events not yet
   * logged: renewed while publishing, withdrawn once idle, so that a process
   * that dies meanwhile leaves a claim that lapses (see reap).
   */
  private claim(): void {
    const now = Date.now();
    if (this.claimIdle) clearTimeout(this.claimIdle);
    this.claimIdle = setTimeout(() => void this.withdrawClaim(), CLAIM_IDLE_MS);
    this.claimIdle.unref();
    if (now < this.claimRenewAt) return;
    this.claimRenewAt = now + CLAIM_MS / 3;
    this.link.command
      .zadd(this.link.key('publishing'), now + CLAIM_MS, this.link.processId)
      .catch(() => (this.claimRenewAt = 0));
  }

  private async withdrawClaim(): Promise<void> {
    if (this.claimIdle) clearTimeout(this.claimIdle);
    this.claimIdle = null;
    if (this.claimRenewAt === 0) return;
    if (this.batch.length > 0 || this.flushQueued) return void this.claim();
    this.claimRenewAt = 0;
    await this.link.command
      .zrem(this.link.key('publishing'), this.link.processId)
      .catch(() => undefined);
  }

  /** Logs, once for each process whose claim lapsed, that every queue may have missed events. */
  private reap(): void {
    if (this.closed) return;
    const entry: StreamEntry = { k: 'lost', all: true };
    runScript(
      this.link.command,
      'reapPublishers',
      [this.link.key('publishing'), this.logKey],
      [Date.now(), LOG_LENGTH, JSON.stringify(entry)],
    ).catch(() => undefined);
  }
}

function addTo(index: Map<number, Set<HeldQueue>>, key: number, queue: HeldQueue): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(queue);
}

function removeFrom(index: Map<number, Set<HeldQueue>>, key: number, queue: HeldQueue): void {
  const set = index.get(key);
  if (set?.delete(queue) && set.size === 0) index.delete(key);
}

/** `promise`, or a rejection after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Redis did not answer in time')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

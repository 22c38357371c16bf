// Event queues in the Redis every server process shares (REDIS_URL): any
// process can register, poll, acknowledge and delete any queue, and losing a
// process loses no queue. The layout of the keys and the scripts that change
// them are in redis-scripts.ts.
//
// Publishing happens in the process whose action committed: it reads the
// recipients' queue IDs and (once per queue, then cached, as they never
// change) their options, shapes the event for each queue as the memory store
// would, and appends it with one script per queue, all in one round trip.
// When Redis cannot take them, the publications wait in this process, in
// order, and are tried again until the retry bound; past it they are given up
// and the queues they were for dropped, so that no queue goes on without an
// event it was owed (their clients register again). A
// poll with nothing to answer records this process as its queue's waiter and
// is parked here (parked.ts), holding no connection; the append that follows
// publishes the queue ID on this process's wake channel, and the poll then
// takes its events.
import { randomUUID } from 'node:crypto';
import {
  eventForQueue,
  noMessageHooks,
  sharedFinalizing,
  type EventBody,
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
import { HeartbeatList, ParkedPoll, type PollAnswer } from './parked';
import type { RedisLink } from './redis';
import { defineScripts, queueScript, runScript } from './redis-scripts';

/** A poll of this process, from its check of the queue until it is answered. */
class Waiter extends ParkedPoll {
  /** checking: the poll's script runs; waiting: nothing to answer yet; taking: reading after a wake-up. */
  state: 'checking' | 'waiting' | 'taking' | 'done' = 'checking';
  /** A wake-up came while the queue was being read; read again. */
  woken = false;
  /** The heartbeat came due while the queue was being read. */
  heartbeatDue = false;

  constructor(
    private readonly store: RedisQueueStore,
    queueId: string,
    after: number,
    follow: boolean,
  ) {
    super(queueId, after, follow);
  }

  cancel(): void {
    this.store.answer(this, []);
  }
}

/** A publication waiting for the next round trip, and how to tell its caller it was handled. */
type Pending =
  | { kind: 'users'; publication: Publication; userIds: number[]; done: () => void }
  | {
      kind: 'public';
      publication: Publication;
      realmId: number;
      except: Set<number>;
      done: () => void;
    };

/**
 * One shaped event for one queue. `seq` numbers this process's appends in
 * order, so that an append sent again after a failure (which may have hidden
 * its success) is not added twice.
 */
interface Append {
  queueId: string;
  index: string;
  json: string;
  seq: number;
}

/** A batch of publications not delivered yet; its appends once shaped (shaping reads Redis too). */
interface Undelivered {
  batch: Pending[];
  appends: Append[] | null;
  /** Counted among the delayed publications. */
  delayed: boolean;
}

/** What the store tells about publications it could not deliver at once. */
export type PublicationReport = (what: string, fields: Record<string, unknown>) => void;

/** Most queue options kept in memory; the oldest are forgotten past it. */
const OPTIONS_CACHE_SIZE = 50_000;
/** How long publications are retried before their queues are dropped, unless the limits say otherwise. */
const PUBLISH_RETRY_MS = 30_000;
/** The pause between two delivery attempts of undelivered publications. */
const RETRY_INTERVAL_MS = 250;
/** Most publications kept undelivered; past it they are given up at once. */
const BACKLOG_LIMIT = 10_000;
/** Most queues dropped by one script. */
const DROP_BATCH = 1000;

/** The event queues of every process, in Redis. */
export class RedisQueueStore implements EventQueueStore {
  private readonly optionsCache = new Map<string, QueueOptions>();
  private readonly waiters = new Map<string, Waiter>();
  /** The polls waiting in this process, for their heartbeats. */
  private readonly heartbeats: HeartbeatList;
  private batch: Pending[] = [];
  private flushQueued = false;
  /** Set at shutdown: polls are answered at once. */
  private draining = false;
  private flushes: Promise<void> = Promise.resolve();
  private readonly indexMs: number;
  /** Publications not delivered yet, oldest first; delivered in this order, never around one another. */
  private backlog: Undelivered[] = [];
  /** When the oldest undelivered publication first failed; 0 while none has. */
  private failingSince = 0;
  /** Queues, and indexes of queues, that missed a publication and are to be dropped. */
  private readonly toDrop = { queues: new Set<string>(), indexes: new Set<string>() };
  private retryTimer: NodeJS.Timeout | null = null;
  private appendSeq = 0;
  /** This process's in-flight mark, which writes with commit callbacks see to before committing. */
  readonly marks: CommitMarks;
  private readonly counts: Omit<PublicationStats, keyof CommitMarks['stats']> = {
    delayed: 0,
    abandoned: 0,
    backlog: 0,
    queuesDropped: 0,
  };

  private constructor(
    private readonly link: RedisLink,
    private readonly limits: QueueLimits,
    private readonly hooks: MessageEventHooks,
    private readonly onError: (error: unknown) => void,
    private readonly report: PublicationReport,
  ) {
    this.indexMs = limits.idleTimeoutMs + limits.heartbeatMs + 1000;
    this.marks = new CommitMarks(link, this, report);
    this.heartbeats = new HeartbeatList(limits.heartbeatMs, (poll) =>
      this.heartbeat(poll as Waiter),
    );
  }

  /**
   * A store on `link`, listening for the wake-ups of this process's polls.
   * `onError` hears of failed reads; `report` of publications delayed,
   * delivered late and given up.
   */
  static async open(
    link: RedisLink,
    limits: QueueLimits,
    hooks: MessageEventHooks = noMessageHooks,
    onError: (error: unknown) => void = () => undefined,
    report: PublicationReport = () => undefined,
  ): Promise<RedisQueueStore> {
    const store = new RedisQueueStore(link, limits, hooks, onError, report);
    defineScripts(link.command);
    await link.subscribe(`wake:${link.processId}`, (queueId) => store.wake(queueId));
    // Wake-ups published while the subscriber was away are lost: look again.
    // Undelivered publications need not wait for the next attempt.
    link.onReconnect(() => {
      for (const waiter of store.waiters.values()) store.wake(waiter.queueId);
      store.retrySoon(0);
    });
    await store.marks.start();
    return store;
  }

  async create(options: QueueOptions): Promise<NewQueue> {
    const id = randomUUID();
    await runScript(
      this.link.command,
      'queueCreate',
      [
        this.queueKey(id),
        this.link.key(`u:${options.userId}`),
        this.link.key(`rp:${options.realmId}`),
      ],
      [
        options.userId,
        options.realmId,
        JSON.stringify(options),
        this.limits.idleTimeoutMs,
        this.indexMs,
        id,
        options.allPublicStreams ? '1' : '0',
      ],
    );
    this.remember(id, options);
    return { id, lastEventId: -1 };
  }

  async delete(queueId: string, userId: number): Promise<boolean> {
    const deleted = await runScript(
      this.link.command,
      'queueDelete',
      [this.queueKey(queueId), this.eventsKey(queueId)],
      [userId, this.link.prefix, queueId],
    );
    this.optionsCache.delete(queueId);
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
    // The waiter is known here before the queue is checked, so that a wake-up
    // arriving between the check and the wait is not missed.
    let waiter: Waiter | undefined;
    if (!dontBlock) {
      this.answer(this.waiters.get(queueId), [], true); // a newer poll replaces an older one
      waiter = new Waiter(this, queueId, after, follow);
      this.waiters.set(queueId, waiter);
    }
    let reply: (number | string)[];
    try {
      reply = (await runScript(
        this.link.command,
        'queuePoll',
        [this.queueKey(queueId), this.eventsKey(queueId)],
        [
          userId,
          lastEventId,
          dontBlock ? '' : this.link.processId,
          this.limits.idleTimeoutMs,
          this.limits.heartbeatMs,
          this.link.prefix,
          queueId,
          after,
        ],
      )) as (number | string)[];
    } catch (error) {
      this.answer(waiter, []);
      throw error;
    }
    if (reply[0] === 0) {
      this.answer(waiter, []);
      return null;
    }
    const events = parseEvents(reply);
    if (!waiter) return events;
    if (waiter.state !== 'checking') return waiter; // answered: replaced or shut down meanwhile
    if (events.length > 0) {
      this.answer(waiter, events);
      return events;
    }
    waiter.state = 'waiting';
    this.heartbeats.add(waiter);
    if (waiter.woken) void this.take(waiter, false);
    return waiter;
  }

  publish(publication: Publication, userIds: Iterable<number>): Promise<void> {
    return new Promise((done) =>
      this.enqueue({ kind: 'users', publication, userIds: [...userIds], done }),
    );
  }

  publishToPublicQueues(
    realmId: number,
    publication: Publication,
    exceptUserIds: Iterable<number>,
  ): Promise<void> {
    return new Promise((done) =>
      this.enqueue({ kind: 'public', publication, realmId, except: new Set(exceptUserIds), done }),
    );
  }

  drain(): void {
    this.draining = true;
    for (const waiter of [...this.waiters.values()]) this.answer(waiter, [], true);
  }

  /**
   * The queues and events of the whole deployment, counted in Redis when
   * asked (one scan of the queue keys, one count per queue), and the polls
   * waiting in this process.
   */
  async stats(): Promise<QueueStats> {
    const { command } = this.link;
    const queueKeys = await this.queueKeys();
    const counts = await execAll(command, queueKeys, (pipe, key) => pipe.zcard(`${key}:ev`));
    let waitingPolls = 0;
    for (const waiter of this.waiters.values()) if (waiter.state !== 'done') waitingPolls++;
    return {
      queues: queueKeys.length,
      events: counts.reduce((sum: number, n) => sum + (n as number), 0),
      waitingPolls,
    };
  }

  publicationStats(): PublicationStats {
    let backlog = 0;
    for (const item of this.backlog) backlog += item.batch.length;
    return { ...this.counts, ...this.marks.stats, backlog };
  }

  /** Whether every publication so far is in its queues, and every queue that missed one dropped. */
  idle(): boolean {
    return (
      !this.flushQueued &&
      this.batch.length === 0 &&
      this.backlog.length === 0 &&
      this.toDrop.queues.size + this.toDrop.indexes.size === 0
    );
  }

  /** Drops every event queue of the deployment (their next poll answers BAD_EVENT_QUEUE_ID); answers how many. */
  async dropAllQueues(): Promise<number> {
    const ids = (await this.queueKeys()).map((key) => key.slice(this.link.key('q:{').length, -1));
    let dropped = 0;
    for (let i = 0; i < ids.length; i += DROP_BATCH) {
      const batch = ids.slice(i, i + DROP_BATCH);
      dropped += (await runScript(
        this.link.command,
        'queuesDrop',
        [],
        [this.link.prefix, batch.length, ...batch],
      )) as number;
      for (const id of batch) this.optionsCache.delete(id);
    }
    return dropped;
  }

  /** Nothing to do: Redis removes the keys of idle queues itself. */
  sweep(): void {}

  async close(): Promise<void> {
    this.drain();
    await this.flushes;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    // Events still owed leave the mark standing, for another process to drop their queues.
    await this.marks.close();
    const left = this.publicationStats().backlog;
    if (left > 0 || this.toDrop.queues.size + this.toDrop.indexes.size > 0)
      this.report('event publications lost at shutdown', {
        publications: left,
        queuesNotDropped: this.toDrop.queues.size,
        indexesNotDropped: this.toDrop.indexes.size,
      });
  }

  /** The keys of every queue, found with one scan. */
  private async queueKeys(): Promise<string[]> {
    const queueKeys: string[] = [];
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
      for (const key of keys) if (key.endsWith('}')) queueKeys.push(key);
    } while (cursor !== '0');
    return queueKeys;
  }

  private queueKey(queueId: string): string {
    return this.link.key(`q:{${queueId}}`);
  }

  private eventsKey(queueId: string): string {
    return this.link.key(`q:{${queueId}}:ev`);
  }

  private remember(queueId: string, options: QueueOptions): void {
    if (this.optionsCache.size >= OPTIONS_CACHE_SIZE) {
      const oldest = this.optionsCache.keys().next().value;
      if (oldest !== undefined) this.optionsCache.delete(oldest);
    }
    this.optionsCache.set(queueId, options);
  }

  /**
   * Answers a poll (once) and forgets it; `ended` when it is over for good
   * (replaced, its queue gone, shutdown), which a stream's poll answers as null.
   */
  answer(waiter: Waiter | undefined, events: QueuedEvent[], ended = false): void {
    if (!waiter || waiter.state === 'done') return;
    waiter.state = 'done';
    this.heartbeats.remove(waiter);
    if (this.waiters.get(waiter.queueId) === waiter) this.waiters.delete(waiter.queueId);
    waiter.settle(ended && waiter.follow ? null : events);
  }

  /** A wake-up for one of this process's polls: its queue has news. */
  private wake(queueId: string): void {
    const waiter = this.waiters.get(queueId);
    if (!waiter) return;
    if (waiter.state === 'waiting') void this.take(waiter, false);
    else waiter.woken = true;
  }

  private heartbeat(waiter: Waiter): void {
    if (waiter.state === 'waiting') void this.take(waiter, true);
    else waiter.heartbeatDue = true;
  }

  /**
   * Reads a waiting poll's queue (after adding a heartbeat, when it is due)
   * and answers it if there is anything; a stream's poll adds no heartbeat
   * and answers nothing when it is due.
   */
  private async take(waiter: Waiter, heartbeat: boolean): Promise<void> {
    waiter.state = 'taking';
    waiter.woken = false;
    waiter.heartbeatDue = false;
    const keys = [this.queueKey(waiter.queueId), this.eventsKey(waiter.queueId)];
    let reply: (number | string)[];
    try {
      // One connection runs commands in order: the heartbeat is in before the read.
      const appended =
        heartbeat && !waiter.follow
          ? runScript(this.link.command, 'queueAppend', keys, [
              '{"type":"heartbeat"}',
              this.limits.maxEvents,
              this.link.key('wake:'),
              waiter.queueId,
            ])
          : null;
      const taken = runScript(this.link.command, 'queueTake', keys, [
        this.link.processId,
        this.limits.idleTimeoutMs,
        waiter.after,
      ]);
      await appended;
      reply = (await taken) as (number | string)[];
    } catch (error) {
      this.onError(error);
      this.answer(waiter, []); // the events stay in the queue for the next poll
      return;
    }
    if (waiter.state !== 'taking') return;
    if (reply[0] !== 2) return this.answer(waiter, [], true); // deleted, or replaced by a newer poll
    const events = parseEvents(reply);
    if (events.length > 0 || (heartbeat && waiter.follow)) return this.answer(waiter, events);
    waiter.state = 'waiting';
    if (waiter.heartbeatDue) void this.take(waiter, true);
    else if (waiter.woken) void this.take(waiter, false);
  }

  /**
   * Adds a publication to the next round trip. One round trip runs at a
   * time, in order. The caller is told once its publication is delivered or
   * kept for a later attempt: a write never waits for Redis to come back.
   */
  private enqueue(pending: Pending): void {
    this.batch.push(pending);
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.flushes = this.flushes.then(async () => {
      this.flushQueued = false;
      const batch = this.batch;
      this.batch = [];
      this.backlog.push({ batch, appends: null, delayed: false });
      await this.deliver();
      for (const p of batch) p.done();
    });
  }

  /**
   * Delivers the undelivered publications, oldest first, after dropping the
   * queues that missed one. At the first failure it stops, keeping the rest
   * for the next attempt; once the oldest has failed for longer than the
   * retry bound, or too many wait, they are given up and their queues dropped.
   */
  private async deliver(): Promise<void> {
    try {
      await this.dropMissed();
      while (this.backlog.length > 0) {
        const next = this.backlog[0];
        next.appends ??= await this.shape(next.batch);
        await this.append(next.appends);
        this.backlog.shift();
      }
    } catch (error) {
      this.delayed(error);
      return;
    }
    if (this.failingSince > 0) {
      this.report('event publications delivered again', {
        afterMs: Date.now() - this.failingSince,
      });
      this.failingSince = 0;
    }
  }

  /** Counts the publications just kept undelivered, gives them up past the bound, and plans the next attempt. */
  private delayed(error: unknown): void {
    const now = Date.now();
    if (this.failingSince === 0) {
      this.failingSince = now;
      this.report('event publication delayed', { error: String(error) });
    }
    let waiting = 0;
    for (const item of this.backlog) {
      waiting += item.batch.length;
      if (!item.delayed) this.counts.delayed += item.batch.length;
      item.delayed = true;
    }
    const bound = this.limits.publishRetryMs ?? PUBLISH_RETRY_MS;
    if (waiting > 0 && (now - this.failingSince >= bound || waiting > BACKLOG_LIMIT)) {
      this.giveUp();
      this.report('event publications given up: their queues will be dropped', {
        publications: waiting,
        error: String(error),
      });
    }
    this.retrySoon(RETRY_INTERVAL_MS);
  }

  /** Gives up the undelivered publications: the queues they were for are to be dropped. */
  private giveUp(): void {
    for (const { batch, appends } of this.backlog) {
      this.counts.abandoned += batch.length;
      if (appends) {
        for (const a of appends) this.toDrop.queues.add(a.queueId);
        continue;
      }
      for (const p of batch) {
        if (p.kind === 'public') this.toDrop.indexes.add(this.link.key(`rp:${p.realmId}`));
        else for (const userId of p.userIds) this.toDrop.indexes.add(this.link.key(`u:${userId}`));
      }
    }
    this.backlog = [];
  }

  /** Drops the queues that missed a publication (their next poll answers BAD_EVENT_QUEUE_ID). */
  private async dropMissed(): Promise<void> {
    const { queues, indexes } = this.toDrop;
    if (queues.size + indexes.size === 0) return;
    const dropped = (await runScript(
      this.link.command,
      'queuesDrop',
      [],
      [this.link.prefix, queues.size, ...queues, ...indexes],
    )) as number;
    for (const id of queues) this.optionsCache.delete(id);
    queues.clear();
    indexes.clear();
    this.counts.queuesDropped += dropped;
    this.report('event queues that missed a publication dropped', { queues: dropped });
  }

  /** Plans another delivery attempt, unless one is planned already. */
  private retrySoon(delayMs: number): void {
    if (this.retryTimer) {
      if (delayMs > 0) return;
      clearTimeout(this.retryTimer);
    }
    if (this.backlog.length + this.toDrop.queues.size + this.toDrop.indexes.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.flushes = this.flushes.then(() => this.deliver());
    }, delayMs);
    this.retryTimer.unref();
  }

  /** Shapes a batch of publications: finds their queues and the event each queue gets, in the order published. */
  private async shape(batch: Pending[]): Promise<Append[]> {
    const { command } = this.link;
    // 1. The queue IDs of the users and realms concerned.
    const indexes = new Map<string, string[]>();
    for (const p of batch) {
      if (p.kind === 'public') indexes.set(this.link.key(`rp:${p.realmId}`), []);
      else for (const userId of p.userIds) indexes.set(this.link.key(`u:${userId}`), []);
    }
    const members = await execAll(command, [...indexes.keys()], (pipe, key) => pipe.smembers(key));
    [...indexes.keys()].forEach((key, i) => indexes.set(key, members[i] as string[]));
    // 2. The options of queues this process has not seen yet; those gone leave their index.
    const unknown = new Map<string, string>();
    for (const [index, ids] of indexes)
      for (const id of ids) if (!this.optionsCache.has(id)) unknown.set(id, index);
    if (unknown.size > 0) {
      const ids = [...unknown.keys()];
      const found = await execAll(command, ids, (pipe, id) => pipe.hget(this.queueKey(id), 'opts'));
      const gone = new Map<string, string>();
      ids.forEach((id, i) => {
        const json = found[i] as string | null;
        if (json) this.remember(id, JSON.parse(json) as QueueOptions);
        else gone.set(id, unknown.get(id)!);
      });
      await this.forget(gone);
    }
    // 3. One append per queue that wants the event, in the order published.
    const appends: Append[] = [];
    for (const p of batch) {
      const shape = shaper(p.publication, this.hooks);
      const add = (queueId: string, index: string) => {
        const options = this.optionsCache.get(queueId);
        if (!options || (p.kind === 'public' && p.except.has(options.userId))) return;
        const json = shape(options);
        if (json) appends.push({ queueId, index, json, seq: ++this.appendSeq });
      };
      if (p.kind === 'public') {
        const index = this.link.key(`rp:${p.realmId}`);
        for (const id of indexes.get(index)!) add(id, index);
      } else {
        for (const userId of p.userIds) {
          const index = this.link.key(`u:${userId}`);
          for (const id of indexes.get(index)!) add(id, index);
        }
      }
    }
    return appends;
  }

  /** Appends shaped events to their queues, in one round trip; queues found gone leave their indexes. */
  private async append(appends: Append[]): Promise<void> {
    const wakePrefix = this.link.key('wake:');
    const ids = await execAll(this.link.command, appends, (pipe, a) =>
      queueScript(
        pipe,
        'queueAppend',
        [this.queueKey(a.queueId), this.eventsKey(a.queueId)],
        [a.json, this.limits.maxEvents, wakePrefix, a.queueId, this.link.processId, a.seq],
      ),
    );
    const gone = new Map<string, string>();
    appends.forEach((a, i) => {
      if (ids[i] === -1) gone.set(a.queueId, a.index);
    });
    await this.forget(gone);
  }

  /** Removes expired queues (ID -> the index it was found in) from their indexes. */
  private async forget(gone: Map<string, string>): Promise<void> {
    if (gone.size === 0) return;
    for (const id of gone.keys()) this.optionsCache.delete(id);
    const pipe = this.link.command.pipeline();
    for (const [id, index] of gone) pipe.srem(index, id);
    await pipe.exec();
  }
}

/** Runs one command per item in one pipeline and answers the replies, throwing the first error. */
async function execAll<T>(
  command: RedisLink['command'],
  items: T[],
  add: (pipe: ReturnType<RedisLink['command']['pipeline']>, item: T) => unknown,
): Promise<unknown[]> {
  if (items.length === 0) return [];
  const pipe = command.pipeline();
  for (const item of items) add(pipe, item);
  const results = (await pipe.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

/**
 * Shapes one publication for queues, remembering the JSON of each distinct
 * result: a message event to a thousand queues is finalized and serialized
 * once per combination of apply_markdown and client_gravatar, not a thousand times.
 */
function shaper(
  publication: Publication,
  hooks: MessageEventHooks,
): (options: QueueOptions) => string | null {
  const memoHooks = sharedFinalizing(publication, hooks);
  const json = new Map<EventBody, string>();
  return (options) => {
    const body = eventForQueue(publication, options, memoHooks);
    if (!body) return null;
    let text = json.get(body);
    if (text === undefined) json.set(body, (text = JSON.stringify(body)));
    return text;
  };
}

/** The events of a script's reply (after its status). */
function parseEvents(reply: (number | string)[]): QueuedEvent[] {
  const events: QueuedEvent[] = [];
  for (let i = 1; i < reply.length; i++) events.push(JSON.parse(reply[i] as string) as QueuedEvent);
  return events;
}

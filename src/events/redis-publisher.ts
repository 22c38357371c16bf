// How the Redis queue store publishes: each publication becomes one entry of
// the shared log, written once whatever the number of its queues; the
// publications of one turn of the event loop go out together, in one script.
// When Redis cannot take them, they wait in this process, in order, and are
// tried again until the retry bound; past it they are given up and the queues
// they were for dropped, so that no queue goes on without an event it was
// owed (their clients register again).
import type { Publication, PublicationStats, QueueLimits } from './queues';
import type { CommitMarks } from './commit-marks';
import type { RedisLink } from './redis';
import { streamId } from './redis-log';
import { runScript } from './redis-scripts';

/**
 * A publication waiting for the next round trip, and how to tell its caller
 * it was handled: to the queues of users, or to every queue of a realm
 * (`realm`) or its all_public_streams queues (`public`) but those of the
 * users of `except`.
 */
export type Pending =
  | { kind: 'users'; publication: Publication; userIds: number[]; done: () => void }
  | {
      kind: 'realm' | 'public';
      publication: Publication;
      realmId: number;
      except: number[];
      done: () => void;
    };

/** A batch of publications not delivered yet: their entries, numbered in this process. */
interface Undelivered {
  batch: Pending[];
  /** Pairs of an entry's number and its JSON, as the append script takes them. */
  entries: string[];
  /** The log's last entry (as this process knew it) when the batch was first sent, once it failed. */
  since: string;
  /** Counted among the delayed publications. */
  delayed: boolean;
}

/** What the store tells about publications it could not deliver at once. */
export type PublicationReport = (what: string, fields: Record<string, unknown>) => void;

/** How long publications are retried before their queues are dropped, unless the limits say otherwise. */
const PUBLISH_RETRY_MS = 30_000;
/** The pause between two delivery attempts of undelivered publications. */
const RETRY_INTERVAL_MS = 250;
/** Most publications kept undelivered; past it they are given up at once. */
const BACKLOG_LIMIT = 10_000;

/** Writes publications to the log, keeping those Redis could not take for another attempt. */
export class LogPublisher {
  private batch: Pending[] = [];
  private flushQueued = false;
  private flushes: Promise<void> = Promise.resolve();
  /** Publications not delivered yet, oldest first; delivered in this order, never around one another. */
  private backlog: Undelivered[] = [];
  /** When the oldest undelivered publication first failed; 0 while none has. */
  private failingSince = 0;
  /** Queues, organizations and indexes of queues that missed a publication, whose queues are to be dropped. */
  private readonly toDrop = {
    queues: new Set<string>(),
    realms: new Set<number>(),
    indexes: new Set<string>(),
  };
  private retryTimer: NodeJS.Timeout | null = null;
  private seq = 0;
  private closed = false;
  private readonly counts = { delayed: 0, abandoned: 0, queuesDropped: 0 };

  constructor(
    private readonly link: RedisLink,
    private readonly limits: QueueLimits,
    private readonly report: PublicationReport,
    /** The event ID of the last entry this process has read (where a failed append is looked for). */
    private readonly lastRead: () => number,
    /** Drops queues by ID, by organization and by index key; answers how many. */
    private readonly drop: (ids: string[], realms: number[], indexes: string[]) => Promise<number>,
  ) {}

  /**
   * Adds a publication to the next round trip. One round trip runs at a
   * time, in order. The caller is told once its publication is delivered or
   * kept for a later attempt: a write never waits for Redis to come back.
   */
  enqueue(pending: Pending): void {
    this.batch.push(pending);
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.flushes = this.flushes.then(async () => {
      this.flushQueued = false;
      const batch = this.batch;
      this.batch = [];
      const entries: string[] = [];
      for (const p of batch) entries.push(String(++this.seq), entryJson(p));
      this.backlog.push({ batch, entries, since: '', delayed: false });
      await this.deliver();
      for (const p of batch) p.done();
    });
  }

  /** Whether every publication so far is in the log, and every queue that missed one dropped. */
  idle(): boolean {
    return (
      !this.flushQueued &&
      this.batch.length === 0 &&
      this.backlog.length === 0 &&
      this.pendingDrops() === 0
    );
  }

  /** The counts for metrics (those of the commit marks added). */
  stats(marks: CommitMarks['stats']): PublicationStats {
    let backlog = 0;
    for (const item of this.backlog) backlog += item.batch.length;
    return { ...this.counts, ...marks, backlog };
  }

  /** Tries the undelivered publications again now (Redis is back). */
  retryNow(): void {
    this.retrySoon(0);
  }

  /** Waits for the round trips under way, and stops retrying; reports what is left. */
  async close(): Promise<void> {
    await this.flushes;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** What is left undelivered at shutdown, for the report. */
  left(): {
    publications: number;
    queuesNotDropped: number;
    realmsNotDropped: number;
    indexesNotDropped: number;
  } {
    let publications = 0;
    for (const item of this.backlog) publications += item.batch.length;
    return {
      publications,
      queuesNotDropped: this.toDrop.queues.size,
      realmsNotDropped: this.toDrop.realms.size,
      indexesNotDropped: this.toDrop.indexes.size,
    };
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
        await this.append(next);
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

  /** Appends one batch's entries in one script; a batch sent again skips the entries already in. */
  private async append(item: Undelivered): Promise<void> {
    const since = item.since;
    // Should this attempt fail, an entry it added can only be after what was read before it.
    if (since === '') item.since = streamId(this.lastRead());
    await runScript(
      this.link.command,
      'logAppend',
      [this.link.key('log')],
      [this.link.processId, since, ...item.entries],
    );
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
    for (const { batch } of this.backlog) {
      this.counts.abandoned += batch.length;
      for (const p of batch) {
        if (p.kind === 'users')
          for (const userId of p.userIds) this.toDrop.indexes.add(this.link.key(`u:${userId}`));
        else if (p.kind === 'public') this.toDrop.indexes.add(this.link.key(`rp:${p.realmId}`));
        else this.toDrop.realms.add(p.realmId);
      }
    }
    this.backlog = [];
  }

  /** Drops the queues that missed a publication (their next poll answers BAD_EVENT_QUEUE_ID). */
  private async dropMissed(): Promise<void> {
    const { queues, realms, indexes } = this.toDrop;
    if (this.pendingDrops() === 0) return;
    const dropped = await this.drop([...queues], [...realms], [...indexes]);
    queues.clear();
    realms.clear();
    indexes.clear();
    this.counts.queuesDropped += dropped;
    this.report('event queues that missed a publication dropped', { queues: dropped });
  }

  /** How many queues, organizations and indexes wait to have their queues dropped. */
  private pendingDrops(): number {
    const { queues, realms, indexes } = this.toDrop;
    return queues.size + realms.size + indexes.size;
  }

  /** Plans another delivery attempt, unless one is planned already. */
  private retrySoon(delayMs: number): void {
    if (this.closed) return;
    if (this.retryTimer) {
      if (delayMs > 0) return;
      clearTimeout(this.retryTimer);
    }
    if (this.backlog.length + this.pendingDrops() === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.flushes = this.flushes.then(() => this.deliver());
    }, delayMs);
    this.retryTimer.unref();
  }
}

/** The JSON of a publication's log entry (EntryData in redis-log.ts). */
function entryJson(p: Pending): string {
  switch (p.kind) {
    case 'users':
      return JSON.stringify({ k: 'p', p: p.publication, u: p.userIds });
    case 'realm':
      return JSON.stringify({ k: 'p', p: p.publication, a: p.realmId, x: p.except });
    case 'public':
      return JSON.stringify({ k: 'p', p: p.publication, r: p.realmId, x: p.except });
  }
}

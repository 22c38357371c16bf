// What covers the events of a write whose process dies between its commit
// and their publication. Each process keeps a liveness key in Redis, renewed
// every second, and, before a write with commit callbacks commits, makes sure
// that its in-flight mark stands: "this process may have committed writes
// whose events are not yet in their queues". The mark is set when the first
// such write begins (concurrent writes wait for the same command) and stays
// while writes follow one another, renewed with the liveness key, so that a
// steady load costs no Redis command per write; it is cleared a second after
// the last write's events are in their queues and nothing waits in the
// backlog. Every process sweeps now and then: the marks of processes whose
// liveness key is gone are claimed (one process claims each), and every event
// queue is dropped, so that their next poll answers BAD_EVENT_QUEUE_ID and
// their clients register again. The mark is per process, not per
// organization: a write does not say which organization it is for. A thread
// of its own extends the liveness key while the main thread is too busy to
// (liveness-thread.ts), up to the hang limit.
import { LivenessThread } from './liveness-thread';
import type { RedisLink } from './redis';
import { runScript } from './redis-scripts';

/** How long a liveness key outlives its last renewal, unless configured. */
export const DEFAULT_LIVENESS_MS = 15_000;
/** How long the main thread may show no sign of life before its liveness key is let expire, unless configured. */
export const DEFAULT_HANG_MS = 60_000;
/** The pause between two renewals of the liveness key. */
const RENEW_MS = 1000;
/** The pause between two sweeps for the marks of dead processes. */
const SWEEP_MS = 2000;
/** How long the mark stays once nothing is in flight. */
const LINGER_MS = 1000;

/** What the marks need of the queue store. */
export interface MarkedStore {
  /** Whether every publication so far is in its queues (or its queues are dropped). */
  idle(): boolean;
  /** Drops every event queue; answers how many. */
  dropAllQueues(): Promise<number>;
}

/** Counts, for metrics. */
export interface CommitMarkStats {
  /** Writes that committed without the mark, Redis being unreachable. */
  markFailures: number;
  /** Queues dropped by this process because another died with events not yet published. */
  queuesDroppedAfterCrash: number;
}

/** This process's in-flight mark and liveness key, and the sweep for those of dead processes. */
export class CommitMarks {
  readonly stats: CommitMarkStats = { markFailures: 0, queuesDroppedAfterCrash: 0 };
  /** Writes between their mark check and their events' settling. */
  private inFlight = 0;
  /** The mark was set (or renewed) by a command sent at `confirmedAt`, and not cleared since. */
  private marked = false;
  private confirmedAt = 0;
  /** Counts the clears sent, so that a renewal sent before one does not count as a mark. */
  private clears = 0;
  private setting: Promise<void> | null = null;
  /** Since when every renewal has succeeded; 0 after a failure. */
  private renewedSince = 0;
  private sweeping = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private clearTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private keeper: LivenessThread | null = null;

  constructor(
    private readonly link: RedisLink,
    private readonly store: MarkedStore,
    private readonly report: (what: string, fields: Record<string, unknown>) => void,
    /**
     * How long a liveness key outlives its last renewal: a process whose
     * renewals are late by more (dead, or so busy that its timers wait) is
     * taken for dead.
     */
    private readonly livenessMs = DEFAULT_LIVENESS_MS,
    /**
     * How long the main thread may go without renewing before the liveness
     * thread stops extending the key for it (a process stuck that long is
     * taken for dead, livenessMs later).
     */
    private readonly hangMs = DEFAULT_HANG_MS,
  ) {}

  /** Sets the liveness key and starts renewing it and sweeping. */
  async start(): Promise<void> {
    await this.renew();
    this.keeper = new LivenessThread(
      {
        url: this.link.url,
        key: this.livenessKey,
        livenessMs: this.livenessMs,
        hangMs: this.hangMs,
        everyMs: RENEW_MS,
      },
      (error) =>
        this.report('the liveness thread failed; only the main thread renews the key', {
          error: String(error),
        }),
    );
    const every = (ms: number, task: () => Promise<void>) => {
      const timer = setInterval(() => void task(), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(RENEW_MS, () => this.renew());
    every(SWEEP_MS, () => this.sweep());
  }

  /**
   * Called before a write with commit callbacks commits: resolves once the
   * mark stands (at once when it stands already). When Redis cannot be
   * reached the write goes on unmarked, counted. Each call is followed by
   * one of `leave`.
   */
  enter(): Promise<void> | undefined {
    this.inFlight++;
    if (this.clearTimer) clearTimeout(this.clearTimer);
    this.clearTimer = null;
    // A mark renewed within half the liveness period stands at the commit that follows.
    if (this.marked && Date.now() - this.confirmedAt < this.livenessMs / 2) return undefined;
    return (this.setting ??= this.mark().finally(() => (this.setting = null)));
  }

  /** Called once the events of an entered write are settled (or it failed). */
  leave(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.planClear();
  }

  /**
   * At a clean stop, after the last publications: clears the mark when
   * nothing is owed, and deletes the liveness key, so that a mark left (events
   * lost at the stop) is swept at once.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.clearTimer) clearTimeout(this.clearTimer);
    await this.keeper?.stop();
    const owing = this.inFlight > 0 || !this.store.idle();
    await this.send(0, owing ? '' : '0').catch(() => undefined);
  }

  private async mark(): Promise<void> {
    const sentAt = Date.now();
    try {
      await this.send(this.livenessMs, '1');
      this.marked = true;
      this.confirmedAt = sentAt;
    } catch {
      this.stats.markFailures++;
    }
  }

  /** Renews the liveness key, and the mark while it is needed (setting it again if a sweep took it). */
  private async renew(): Promise<void> {
    if (this.closed) return;
    this.keeper?.alive();
    const sentAt = Date.now();
    const clears = this.clears;
    const keep = this.marked || this.inFlight > 0 || !this.store.idle();
    try {
      await this.send(this.livenessMs, keep ? '1' : '');
      if (keep && clears === this.clears) {
        this.marked = true;
        this.confirmedAt = sentAt;
        if (this.inFlight === 0) this.planClear();
      }
      if (this.renewedSince === 0) this.renewedSince = sentAt;
    } catch {
      this.renewedSince = 0;
    }
  }

  /** Clears the mark a moment after the last write, once the backlog is empty too. */
  private planClear(): void {
    if (this.clearTimer || this.closed) return;
    this.clearTimer = setTimeout(() => {
      this.clearTimer = null;
      if (this.inFlight > 0 || !this.marked) return;
      if (!this.store.idle()) return this.planClear();
      this.marked = false;
      this.clears++;
      // Commands on the connection run in order: a mark sent after this one wins.
      this.send(this.livenessMs, '0').catch(() => undefined);
    }, LINGER_MS);
    this.clearTimer.unref();
  }

  /**
   * Claims the marks of dead processes and drops every queue for them. Only
   * once this process's own renewals have succeeded for a whole liveness
   * period: after an outage of Redis, the others get that long to renew
   * their keys before their marks count as a dead process's.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.closed) return;
    if (this.renewedSince === 0 || Date.now() - this.renewedSince < this.livenessMs) return;
    this.sweeping = true;
    try {
      const claimed = (await runScript(
        this.link.command,
        'marksClaim',
        [this.link.key('marks')],
        [this.link.prefix, this.link.processId],
      )) as string[];
      if (claimed.length === 0) return;
      const dropped = await this.store.dropAllQueues();
      this.stats.queuesDroppedAfterCrash += dropped;
      await this.link.command.hdel(this.link.key('marks'), ...claimed);
      this.report(
        'event queues dropped: a process died with events of committed writes unpublished',
        {
          processes: claimed.map((name) => name.slice('drop:'.length)),
          queues: dropped,
        },
      );
    } catch (error) {
      // Claimed marks stay held by this process; if it dies they are claimed again.
      this.report('sweep for the marks of dead processes failed', { error: String(error) });
    } finally {
      this.sweeping = false;
    }
  }

  private get livenessKey(): string {
    return this.link.key(`proc:${this.link.processId}`);
  }

  private send(livenessMs: number, mark: '1' | '0' | ''): Promise<unknown> {
    return runScript(
      this.link.command,
      'processMark',
      [this.livenessKey, this.link.key('marks')],
      [this.link.processId, livenessMs, mark],
    );
  }
}

// The event log of the Redis queue store, as each process holds it: the
// entries of `<prefix>log` (see redis-scripts.ts) parsed once, the recent
// ones kept in memory, and the reader that follows the log on a connection of
// its own (XREAD BLOCK from the last entry it read, resuming after a lost
// connection). The store answers its waiting polls from each new entry, and
// other polls from the entries kept, or from Redis when they reach back
// further.
import type Redis from 'ioredis';
import { sharedFinalizing, type MessageEventHooks, type Publication } from './queues';
import { EntryRun, type EntryData, type LogEntry, type Picked, type Picker } from './log-runs';

/**
 * The event ID of a stream ID `<ms>-<seq>`: ms * 1000 + seq (the append
 * script keeps seq below 1000), below 2^53 until the year 2255.
 */
export function eventId(streamId: string): number {
  const dash = streamId.indexOf('-');
  return Number(streamId.slice(0, dash)) * 1000 + Number(streamId.slice(dash + 1));
}

/** The stream ID of an event ID (the inverse of eventId); 0-0 for negative IDs. */
export function streamId(id: number): string {
  if (id < 0) return '0-0';
  return `${Math.floor(id / 1000)}-${id % 1000}`;
}

/** An entry of a stream as ioredis answers it: its ID and its fields, names and values in turn. */
export type RawEntry = [string, string[]];

/** Parses a raw entry (fields o, s, e: see redis-scripts.ts). */
export function parseEntry([id, fields]: RawEntry): LogEntry {
  let json = '{}';
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === 'e') json = fields[i + 1];
  const data = JSON.parse(json) as EntryData | { k: 'p'; p: Publication; u: number[] };
  if ('u' in data) data.u = Int32Array.from(data.u).sort();
  return { id: eventId(id), data: data as EntryData };
}

/** The hooks that finalize a publication's message event once per kind of queue. */
export function entryHooks(entry: LogEntry, hooks: MessageEventHooks): MessageEventHooks {
  if (entry.data.k !== 'p') return hooks;
  return (entry.hooks ??= sharedFinalizing(entry.data.p, hooks));
}

/** How many entries, and of what age, a process keeps in memory. */
export interface WindowLimits {
  maxEntries: number;
  maxAgeMs: number;
}

/**
 * The recent entries of the log, in order. Every entry after `start` is in
 * it: a poll whose position is at or after `start` is answered from memory.
 */
export class LogWindow {
  private readonly run = new EntryRun();
  /** Every entry after this event ID is held (or not read yet: see `last`). */
  start: number;
  /** The event ID of the last entry read. */
  last: number;

  constructor(
    from: number,
    private readonly limits: WindowLimits,
  ) {
    this.start = from;
    this.last = from;
  }

  /** Adds the entries after the last one held, in order; answers those that were new. */
  add(entries: LogEntry[]): LogEntry[] {
    const added: LogEntry[] = [];
    for (const entry of entries) {
      if (entry.id <= this.last) continue;
      this.run.push(entry);
      this.last = entry.id;
      added.push(entry);
    }
    this.letGo();
    return added;
  }

  /** The publications for `queue` held after event ID `after`, oldest first, or that it was dropped. */
  pick(queue: Picker, after: number): Picked {
    return this.run.pick(queue, after);
  }

  /** Lets go of the entries past the count or older than the age. */
  private letGo(): void {
    const oldest = (Date.now() - this.limits.maxAgeMs) * 1000;
    for (let first = this.run.first; first; first = this.run.first) {
      if (this.run.size <= this.limits.maxEntries && first.id >= oldest) break;
      this.start = first.id;
      this.run.shift();
    }
  }

  /** Lets go of entries by age even when none come, and of an index no poll uses. */
  tidy(): void {
    this.letGo();
    this.run.tidy();
  }
}

/** How long a blocked read waits before it is sent again (so that a dead connection is noticed). */
const BLOCK_MS = 5000;
/** Most entries one read takes. */
const READ_COUNT = 1000;
/** The pause after a failed read before the next. */
const RETRY_MS = 250;

/** Reads the log as it grows, on a connection of its own, and hands each batch of new entries on. */
export class LogReader {
  private closed = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: Redis,
    private readonly logKey: string,
    private readonly window: LogWindow,
    /** Called with the new entries of each read, in order. */
    private readonly onEntries: (entries: LogEntry[]) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts reading after the window's last entry. */
  start(): void {
    this.running = this.loop();
  }

  /** Stops reading and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.connection.disconnect();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      try {
        const reply = (await this.connection.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.logKey,
          streamId(this.window.last),
        )) as [string, RawEntry[]][] | null;
        if (reply) this.ingest(reply[0][1]);
        else this.window.tidy();
      } catch (error) {
        if (this.closed) return;
        this.onError(error);
        await new Promise((done) => setTimeout(done, RETRY_MS));
      }
    }
  }

  /** Parses and hands on the entries not held yet (another read may have brought some already). */
  ingest(raw: RawEntry[]): void {
    const added = this.window.add(raw.map(parseEntry));
    if (added.length > 0) this.onEntries(added);
  }
}

/** How long a process keeps entries read from before its window after the last poll that used them. */
const OLDER_KEEP_MS = 10_000;

/**
 * Entries from before the window, read from the log for polls that reach
 * back past it (a queue polled on another process, or a poll after a burst
 * of entries), and kept a moment: one contiguous run of entries, read once
 * for every such poll, in pages, one read at a time, so that many polls
 * reaching back at once cost Redis one range and not one each.
 */
export class OlderEntries {
  /** The run held: every entry in (from, to], oldest first; empty when to is 0. */
  private readonly run = new EntryRun();
  private from = 0;
  private to = 0;
  /** Entries up to this event ID were trimmed from the log when last read. */
  private lost = 0;
  private usedAt = 0;
  /** Polls reading the run or waiting their turn to: it is not let go meanwhile. */
  private reading = 0;
  /** The reads, one after another. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly command: Redis,
    private readonly logKey: string,
    private readonly trimmedKey: string,
  ) {}

  /**
   * The publications for `queue` among the entries in (after, upTo], oldest
   * first, or that it was dropped there, or 'trimmed' when some of them were
   * trimmed from the log (a queue reaching back to them has lost events).
   */
  async between(queue: Picker, after: number, upTo: number): Promise<Picked | 'trimmed'> {
    this.reading++;
    const read = this.chain.then(() => this.cover(after, upTo));
    this.chain = read.catch(() => undefined);
    try {
      await read;
    } finally {
      this.reading--;
    }
    if (after < this.lost) return 'trimmed';
    this.usedAt = Date.now();
    return this.run.pick(queue, after, upTo);
  }

  /** Lets go of the run once no poll has used it for a while (and none is reading for it). */
  tidy(now = Date.now()): void {
    if (this.reading === 0 && this.to !== 0 && now - this.usedAt > OLDER_KEEP_MS) {
      this.run.clear();
      this.from = this.to = 0;
    }
    this.run.tidy(now);
  }

  /** Reads what the run lacks of (after, upTo]: below it, above it, or all of it. */
  private async cover(after: number, upTo: number): Promise<void> {
    if (after < this.lost) return;
    if (this.to === 0) {
      this.run.clear();
      for (const entry of await this.range(after, upTo)) this.run.push(entry);
      this.from = Math.max(after, this.lost);
      this.to = upTo;
      return;
    }
    if (after < this.from) {
      this.run.prepend(await this.range(after, this.from));
      this.from = Math.max(after, this.lost);
    }
    if (upTo > this.to) {
      for (const entry of await this.range(this.to, upTo)) this.run.push(entry);
      this.to = upTo;
    }
  }

  /** The entries in (after, upTo] read from the log in pages; notes how far it was trimmed. */
  private async range(after: number, upTo: number): Promise<LogEntry[]> {
    const entries: LogEntry[] = [];
    let from = `(${streamId(after)}`;
    for (;;) {
      const raw = (await this.command.xrange(
        this.logKey,
        from,
        streamId(upTo),
        'COUNT',
        READ_COUNT,
      )) as RawEntry[];
      for (const entry of raw) entries.push(parseEntry(entry));
      if (raw.length < READ_COUNT) break;
      from = `(${raw[raw.length - 1][0]}`;
    }
    // Read after the range: a trim that ran before or during it shows.
    const trimmed = await this.command.get(this.trimmedKey);
    if (trimmed !== null) this.lost = Math.max(this.lost, eventId(trimmed));
    return entries;
  }
}

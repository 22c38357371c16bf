// Runs of the log's entries held in a process (its recent window, and the
// older run read for polls that reach back past it), and how a queue's
// entries are picked out of them. A short stretch is scanned. When polls keep
// scanning long stretches of a run (many queues polled after a pause, each
// reaching back over thousands of entries), the run is indexed once by whom
// its entries concern and by event type, so that each of those polls touches
// only the entries of the types it wants for its user and for its whole
// realm, and the drops of its queue.
import { wantsType, type MessageEventHooks, type Publication, type QueueOptions } from './queues';

/** What an entry of the log says, as its JSON holds it. */
export type EntryData =
  /**
   * A publication to the queues of users (`u`: in the log a JSON list, once
   * parsed their IDs in order, outside the heap's reach, however many), to
   * every queue of a realm (`a`: an event for all its members, whatever
   * their number), or to a realm's public queues (`r`), but those of users `x`.
   */
  | { k: 'p'; p: Publication; u: Int32Array }
  | { k: 'p'; p: Publication; a: number; x: number[] }
  | { k: 'p'; p: Publication; r: number; x: number[] }
  /** Queues deleted or dropped: every process forgets them and answers their waiting polls. */
  | { k: 'd'; q: string[] }
  /** Queue `q` taken by a waiting poll of process `h`: another process's waiting poll on it is answered. */
  | { k: 't'; q: string; h: string }
  /** Queues whose waiting polls came due for a heartbeat, which carries this entry's ID. */
  | { k: 'h'; q: string[] };

/** One entry of the log, parsed. */
export interface LogEntry {
  /** Its event ID (see eventId). */
  id: number;
  data: EntryData;
  /** The hooks that finalize its message event once per kind of queue (sharedFinalizing). */
  hooks?: MessageEventHooks;
}

/** The queue whose entries are picked. */
export interface Picker {
  id: string;
  options: QueueOptions;
}

/** A queue's entries in a stretch of the log: its publications, or that it was dropped there. */
export type Picked = LogEntry[] | 'dropped';

/** Picks spanning at most this many entries scan them, index or not. */
const SCAN_MOST = 64;
/** How long an index no pick has used is kept. */
const INDEX_KEEP_MS = 10_000;

/** Whether `ids` (in order) holds `id`. */
function holds(ids: Int32Array, id: number): boolean {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < ids.length && ids[lo] === id;
}

/** Whether entry `entry` (a publication) is for a queue of this user with these options. */
function entryReaches(entry: LogEntry, options: QueueOptions): boolean {
  const { data } = entry;
  if (data.k !== 'p') return false;
  if ('u' in data) return holds(data.u, options.userId);
  if ('a' in data) return options.realmId === data.a && !data.x.includes(options.userId);
  return options.allPublicStreams && options.realmId === data.r && !data.x.includes(options.userId);
}

/** The index of the first of `entries` (in order, from `lo` on) whose ID is above `id`. */
function firstAfter(entries: LogEntry[], lo: number, id: number): number {
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid].id <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The entries of `list` (in order) in (after, upTo]. */
function within(list: LogEntry[], after: number, upTo: number): LogEntry[] {
  const lo = firstAfter(list, 0, after);
  return list.slice(lo, firstAfter(list, lo, upTo));
}

/** Two lists of entries in order, merged in order. */
function merged(a: LogEntry[], b: LogEntry[]): LogEntry[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: LogEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i].id < b[j].id ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

/** The type of a publication's fallback event, when it has one of another type than its event. */
function fallbackType(publication: Publication): string | undefined {
  const other = publication.fallback?.event?.type;
  return other === publication.event.type ? undefined : other;
}

/** The types of event a publication can give a queue: its event's, and its fallback's. */
function typesOf(publication: Publication): string[] {
  const other = fallbackType(publication);
  return other === undefined ? [publication.event.type] : [publication.event.type, other];
}

/** Whether a queue with these options can get an event of the publication's types (no list made). */
function wanted(publication: Publication, options: QueueOptions): boolean {
  if (options.eventTypes === null || wantsType(options, publication.event.type)) return true;
  const other = fallbackType(publication);
  return other !== undefined && wantsType(options, other);
}

/** Lists of entries in order, by event type. */
type ByType = Map<string, LogEntry[]>;

/** The entries of a run in order, looked up by whom they concern and by event type. */
class EntryIndex {
  /** Publications to users, by user. */
  private readonly byUser = new Map<number, ByType>();
  /** Publications to a realm's queues (all of them, or its public ones), by realm. */
  private readonly byRealm = new Map<number, ByType>();
  /** The IDs of the entries that dropped each queue. */
  private readonly drops = new Map<string, number[]>();

  add(entry: LogEntry): void {
    const { data } = entry;
    if (data.k === 'd') {
      for (const id of data.q) push(this.drops, id, entry.id);
    } else if (data.k === 'p') {
      for (const type of typesOf(data.p)) {
        if ('u' in data) for (const userId of data.u) pushTyped(this.byUser, userId, type, entry);
        else pushTyped(this.byRealm, 'a' in data ? data.a : data.r, type, entry);
      }
    }
  }

  pick(queue: Picker, after: number, upTo: number): Picked {
    const { options } = queue;
    if (this.drops.get(queue.id)?.some((id) => id > after && id <= upTo)) return 'dropped';
    const own = ofTypes(this.byUser.get(options.userId), options, after, upTo);
    const realm = ofTypes(this.byRealm.get(options.realmId), options, after, upTo);
    return merged(
      own,
      realm.filter((entry) => entryReaches(entry, options)),
    );
  }
}

/** The entries in (after, upTo] of the lists of the types a queue wants, in order, each once. */
function ofTypes(
  lists: ByType | undefined,
  options: QueueOptions,
  after: number,
  upTo: number,
): LogEntry[] {
  if (!lists) return [];
  const found: LogEntry[][] = [];
  const add = (list: LogEntry[] | undefined) => {
    const part = list ? within(list, after, upTo) : [];
    if (part.length > 0) found.push(part);
  };
  if (options.eventTypes === null) for (const list of lists.values()) add(list);
  else for (const type of options.eventTypes) add(lists.get(type));
  if (found.length <= 1) return found[0] ?? [];
  // An entry listed under two types (its event's and its fallback's) is taken once.
  return [...new Set(found.flat())].sort((a, b) => a.id - b.id);
}

/** Adds `value` to the list of `key`, unless it is the list's last already (a key named twice). */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (list[list.length - 1] !== value) list.push(value);
}

/** Adds `entry` to the list of `type` under `key`. */
function pushTyped(map: Map<number, ByType>, key: number, type: string, entry: LogEntry): void {
  let lists = map.get(key);
  if (!lists) map.set(key, (lists = new Map()));
  push(lists, type, entry);
}

/** A queue's entries among entries[lo, hi), scanned one by one. */
function scan(entries: LogEntry[], lo: number, hi: number, queue: Picker): Picked {
  const picked: LogEntry[] = [];
  for (let i = lo; i < hi; i++) {
    const entry = entries[i];
    const { data } = entry;
    if (data.k === 'd' && data.q.includes(queue.id)) return 'dropped';
    if (data.k === 'p' && entryReaches(entry, queue.options) && wanted(data.p, queue.options))
      picked.push(entry);
  }
  return picked;
}

/**
 * Entries of the log in order, added at the end (or, all at once, before the
 * first), let go of from the front, from which a queue's are picked.
 */
export class EntryRun {
  /** The entries, oldest first, from `head` on (the ones before were let go). */
  private entries: LogEntry[] = [];
  private head = 0;
  /** The run's index, while picks use it; it may still hold entries let go since it was made. */
  private index: EntryIndex | null = null;
  /** Entries let go of since the index was made. */
  private letGoSince = 0;
  /** The ID of the last entry let go of (the index may still hold it). */
  private goneUpTo = -1;
  /** Entries scanned by long picks since the run was last indexed. */
  private scanned = 0;
  private usedAt = 0;

  /** How many entries are held. */
  get size(): number {
    return this.entries.length - this.head;
  }

  /** The oldest entry held. */
  get first(): LogEntry | undefined {
    return this.entries[this.head];
  }

  /** Adds an entry after the last. */
  push(entry: LogEntry): void {
    this.entries.push(entry);
    this.index?.add(entry);
  }

  /** Adds entries, in order, before the first. */
  prepend(entries: LogEntry[]): void {
    this.entries = entries.concat(this.entries.slice(this.head));
    this.head = 0;
    this.index = null;
    this.goneUpTo = -1;
  }

  /** Lets go of the oldest entry. */
  shift(): void {
    this.goneUpTo = this.entries[this.head].id;
    this.head++;
    if (this.index && ++this.letGoSince > this.size) this.index = null;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** Lets go of every entry. */
  clear(): void {
    this.entries = [];
    this.head = 0;
    this.index = null;
    this.goneUpTo = -1;
    this.scanned = 0;
  }

  /**
   * The publications that reach `queue`, of an event type it wants, among
   * the entries in (after, upTo], in order; or that it was dropped there.
   */
  pick(queue: Picker, after: number, upTo = Infinity): Picked {
    after = Math.max(after, this.goneUpTo);
    const lo = firstAfter(this.entries, this.head, after);
    const hi = firstAfter(this.entries, lo, upTo);
    if (hi - lo <= SCAN_MOST) return scan(this.entries, lo, hi, queue);
    this.usedAt = Date.now();
    // Indexing the run costs about one pass over it: index it once long
    // picks have scanned as many entries as it holds.
    if (!this.index && (this.scanned += hi - lo) > this.size) this.indexAll();
    return this.index ? this.index.pick(queue, after, upTo) : scan(this.entries, lo, hi, queue);
  }

  /** Lets go of an index no pick has used for a while. */
  tidy(now = Date.now()): void {
    if (now - this.usedAt <= INDEX_KEEP_MS) return;
    this.index = null;
    this.scanned = 0;
  }

  private indexAll(): void {
    this.index = new EntryIndex();
    this.letGoSince = 0;
    this.scanned = 0;
    for (let i = this.head; i < this.entries.length; i++) this.index.add(this.entries[i]);
  }
}

// The shared event log of a deployment on Redis: one Redis Stream that every
// server process appends to and reads from. An entry holds what happened to
// queues (publications with their recipients, a queue created, deleted or
// given a heartbeat, queues lost), never an event shaped for one queue: each
// process shapes the entries for the queues it holds, as the memory store
// does, and any process rebuilds any queue by reading the log from the
// queue's creation.
import type { Publication } from './queues';

/** A publication to the queues of some users, or to a realm's all_public_streams queues. */
export type StreamItem =
  { p: Publication; u: number[] } | { p: Publication; r: number; x: number[] };

/** One entry of the log. */
export type StreamEntry =
  /** Publications committed together, in order; `t` tells a retried append from a new one. */
  | { k: 'pub'; t: string; items: StreamItem[] }
  /** A queue was created: it receives the entries after this one. */
  | { k: 'new'; q: string }
  /** A heartbeat for one queue, whose poll waited the heartbeat interval. */
  | { k: 'hb'; q: string }
  /** A queue was deleted. */
  | { k: 'del'; q: string }
  /**
   * Events that were committed but never reached the log: the queues that
   * may have missed them (of these users, of these realms' all_public_streams
   * queues, or every queue) are lost and must be registered again.
   */
  | { k: 'lost'; users?: number[]; realms?: number[]; all?: boolean };

/** An entry with its position in the log (`<ms>-<seq>`, as Redis numbers stream entries). */
export interface PositionedEntry {
  id: string;
  entry: StreamEntry;
}

/** Whether log position `a` comes after `b`. */
export function isAfter(a: string, b: string): boolean {
  const dashA = a.indexOf('-');
  const dashB = b.indexOf('-');
  const msA = Number(a.slice(0, dashA));
  const msB = Number(b.slice(0, dashB));
  if (msA !== msB) return msA > msB;
  return Number(a.slice(dashA + 1)) > Number(b.slice(dashB + 1));
}

/** The entries of an XRANGE or XREAD reply for one stream (fields `e` holding the JSON). */
export function parseEntries(rows: [string, string[]][]): PositionedEntry[] {
  const entries: PositionedEntry[] = [];
  for (const [id, fields] of rows) {
    const at = fields.indexOf('e');
    if (at === -1 || at + 1 >= fields.length) continue;
    entries.push({ id, entry: JSON.parse(fields[at + 1]) as StreamEntry });
  }
  return entries;
}

// Picking a queue's entries out of a run of the event log: whether the run
// is scanned or, after long picks, indexed, a queue gets exactly the
// publications that reach it (to its user, to its whole realm but for the
// users left out, to its realm's public queues when it follows them) whose
// event, or fallback event, is of a type it asked for, in order, and learns
// of a drop of its queue in the stretch asked for.
import {
  EntryRun,
  type EntryData,
  type LogEntry,
  type Picked,
  type Picker,
} from '../src/events/log-runs';
import type { Publication, QueueOptions } from '../src/events/queues';

/** A small deterministic generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Publications of a few event types, one of them with a fallback of another type. */
const publications = [
  { event: { type: 'message' } },
  { event: { type: 'realm' } },
  { event: { type: 'realm_user' } },
  { event: { type: 'user_group' }, fallback: { capability: 'c', event: { type: 'realm_user' } } },
] as unknown as Publication[];
const typesOf = (p: Publication) => [p.event.type, p.fallback?.event?.type];
const eventTypes = [null, ['message'], ['realm', 'realm_user'], ['user_group']];
const users = 12;
const queueIds = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5'];

function pickers(): Picker[] {
  const out: Picker[] = [];
  for (let userId = 1; userId <= users; userId++)
    for (const allPublicStreams of [false, true])
      for (const types of eventTypes)
        out.push({
          id: queueIds[userId % queueIds.length],
          options: {
            userId,
            realmId: userId <= 8 ? 1 : 2,
            allPublicStreams,
            eventTypes: types,
          } as QueueOptions,
        });
  return out;
}

/** Entries of every kind, IDs increasing with gaps. */
function entries(next: () => number, count: number): LogEntry[] {
  const out: LogEntry[] = [];
  let id = 1000;
  const someUsers = () => [...Array(users).keys()].map((i) => i + 1).filter(() => next() < 0.3);
  for (let i = 0; i < count; i++) {
    id += 1 + Math.floor(next() * 3);
    const kind = next();
    let data: EntryData;
    if (kind < 0.5) {
      const chosen = someUsers();
      // A user named twice gets the entry once.
      if (chosen.length > 0 && next() < 0.2) chosen.push(chosen[0]);
      data = {
        k: 'p',
        p: publications[Math.floor(next() * publications.length)],
        u: Int32Array.from(chosen).sort(),
      };
    } else if (kind < 0.65)
      data = {
        k: 'p',
        p: publications[Math.floor(next() * publications.length)],
        a: next() < 0.5 ? 1 : 2,
        x: someUsers(),
      };
    else if (kind < 0.8)
      data = {
        k: 'p',
        p: publications[Math.floor(next() * publications.length)],
        r: next() < 0.5 ? 1 : 2,
        x: someUsers(),
      };
    else if (kind < 0.85) data = { k: 'd', q: queueIds.filter(() => next() < 0.1) };
    else if (kind < 0.93) data = { k: 't', q: queueIds[0], h: 'p1' };
    else data = { k: 'h', q: queueIds.slice(0, 2) };
    out.push({ id, data });
  }
  return out;
}

/** What a queue's pick must be, worked out entry by entry on its own. */
function expected(all: LogEntry[], queue: Picker, after: number, upTo: number): Picked {
  const { userId, realmId, allPublicStreams, eventTypes: types } = queue.options;
  const picked: LogEntry[] = [];
  for (const entry of all) {
    if (entry.id <= after || entry.id > upTo) continue;
    const { data } = entry;
    if (data.k === 'd' && data.q.includes(queue.id)) return 'dropped';
    if (data.k !== 'p') continue;
    if (types !== null && !typesOf(data.p).some((type) => type && types.includes(type))) continue;
    if (
      'u' in data
        ? data.u.includes(userId)
        : 'a' in data
          ? data.a === realmId && !data.x.includes(userId)
          : allPublicStreams && data.r === realmId && !data.x.includes(userId)
    )
      picked.push(entry);
  }
  return picked;
}

const ids = (picked: Picked) => (picked === 'dropped' ? picked : picked.map((e) => e.id));

test.each([1, 2, 3, 4, 5])(
  'picks match entry-by-entry checks, scanned or indexed (seed %i)',
  (seed) => {
    const next = random(seed);
    const all = entries(next, 600);
    const run = new EntryRun();
    // Half added at once, then the older entries before them, then the rest one by one.
    const middle = 200;
    for (const entry of all.slice(middle, 400)) run.push(entry);
    run.prepend(all.slice(0, middle));
    let checked = 0;
    const check = (held: LogEntry[]) => {
      for (const queue of pickers()) {
        // Long stretches (which index the run once they add up) and short ones.
        const from = held[Math.floor(next() * held.length)].id - 1;
        // The first stretch reaches back past what the run holds.
        for (const [after, upTo] of [
          [all[0].id - 1, Infinity],
          [from, Infinity],
          [from, from + 40],
        ]) {
          expect([queue.id, after, upTo, ids(run.pick(queue, after, upTo))]).toEqual([
            queue.id,
            after,
            upTo,
            ids(expected(held, queue, after, upTo)),
          ]);
          checked++;
        }
      }
    };
    check(all.slice(0, 400));
    // Entries added to an indexed run, and some let go of from the front.
    for (const entry of all.slice(400)) run.push(entry);
    for (let i = 0; i < 150; i++) run.shift();
    check(all.slice(150));
    // Enough let go of that the index is made again from what is held.
    for (let i = 0; i < 300; i++) run.shift();
    check(all.slice(450));
    expect(checked).toBe(3 * 3 * pickers().length);
  },
);

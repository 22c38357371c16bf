// The presence rows of each organization, kept in memory by each server
// process, so that a presence report (every member, each minute) does not read
// every row of its organization. Before each use, one small query brings an
// organization's rows up to date: the rows whose sequence number is above the
// highest seen. Sequence numbers are given out under the organization row's
// lock (src/actions/users/presence.ts), so they become visible in order, and this
// holds with several processes on one database without any message between
// them. Changes to users that leave their presence rows alone (deactivation,
// presence_enabled, email, email visibility) reach the cache through the
// Authenticator's forgetUser / forgetRealm, which mark rows stale; as a safety
// net an organization's rows are read afresh every REBUILD_MS.
import { Prisma } from '../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../db/client';

/** A presence row with what the answers need of its user. */
export interface CachedPresence {
  userId: number;
  lastActiveTime: Date | null;
  lastConnectedTime: Date | null;
  lastUpdateId: number;
  email: string;
  emailAddressVisibility: number;
  dateJoined: Date;
  /** Shown to others: an active human with presence_enabled on. */
  shown: boolean;
  /** The row's modern entry as JSON text, once an answer has needed it (a changed row is a new object). */
  modernText?: string;
}

/** Milliseconds after which an organization's rows are read afresh. */
const REBUILD_MS = 30_000;
/** Milliseconds without use after which an organization's rows are forgotten. */
const IDLE_MS = 10 * 60_000;

interface RawRow {
  userId: number | bigint;
  lastActiveTime: Date | null;
  lastConnectedTime: Date | null;
  lastUpdateId: number | bigint;
  email: string;
  emailAddressVisibility: number | bigint;
  dateJoined: Date;
  isActive: boolean;
  isBot: boolean;
  presenceEnabled: boolean;
}

const columns = Prisma.sql`SELECT p."userId", p."lastActiveTime", p."lastConnectedTime", p."lastUpdateId",
  u."email", u."emailAddressVisibility", u."dateJoined", u."isActive", u."isBot", u."presenceEnabled"
  FROM "UserPresence" p JOIN "User" u ON u."id" = p."userId"`;

function toCached(r: RawRow): CachedPresence {
  return {
    userId: Number(r.userId),
    lastActiveTime: r.lastActiveTime,
    lastConnectedTime: r.lastConnectedTime,
    lastUpdateId: Number(r.lastUpdateId),
    email: r.email,
    emailAddressVisibility: Number(r.emailAddressVisibility),
    dateJoined: r.dateJoined,
    shown: r.isActive && !r.isBot && r.presenceEnabled,
  };
}

/** One organization's rows and what is known to be out of date in them. */
class RealmPresences {
  readonly rows = new Map<number, CachedPresence>();
  /** The highest sequence number read. */
  highest = -1;
  /** When the rows were last read whole (0: never, or all marked stale). */
  builtAt = 0;
  /** Counts the times all rows were marked stale, so that a read running meanwhile does not count as fresh. */
  epoch = 0;
  usedAt = 0;
  /** Users whose rows must be read again. */
  readonly stale = new Set<number>();
  /** The update running now, and the one queued after it. */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(readonly realmId: number) {}

  /** Has the next update read every row. */
  markAllStale(): void {
    this.builtAt = 0;
    this.epoch++;
  }

  /**
   * Brings the rows up to date with everything committed before the call:
   * joins an update that has not started yet, or queues one after the running one.
   */
  update(db: Db): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start(db);
    const next = () => {
      this.queued = null;
      return this.start(db);
    };
    this.queued = this.running.then(next, next);
    return this.queued;
  }

  private start(db: Db): Promise<void> {
    const run = this.read(db)
      .catch((error: unknown) => {
        // What the failed read was to bring in is unknown: read everything next time.
        this.markAllStale();
        throw error;
      })
      .finally(() => {
        if (this.running === run) this.running = null;
      });
    this.running = run;
    return run;
  }

  private async read(db: Db): Promise<void> {
    const now = Date.now();
    if (this.builtAt === 0 || now - this.builtAt >= REBUILD_MS) {
      const epoch = this.epoch;
      this.stale.clear();
      const rows = await queryRows<RawRow>(
        db,
        Prisma.sql`${columns} WHERE p."realmId" = ${this.realmId}`,
      );
      this.rows.clear();
      this.highest = -1;
      this.store(rows);
      this.builtAt = epoch === this.epoch ? now : 0;
      return;
    }
    const stale = [...this.stale];
    this.stale.clear();
    const newer = await queryRows<RawRow>(
      db,
      Prisma.sql`${columns} WHERE p."realmId" = ${this.realmId} AND p."lastUpdateId" > ${this.highest}`,
    );
    this.store(newer);
    for (const userId of stale) {
      const [row] = await queryRows<RawRow>(
        db,
        Prisma.sql`${columns} WHERE p."userId" = ${userId} AND p."realmId" = ${this.realmId}`,
      );
      if (row) this.store([row]);
      else this.rows.delete(userId);
    }
  }

  private store(rows: RawRow[]): void {
    for (const raw of rows) {
      const row = toCached(raw);
      this.rows.set(row.userId, row);
      if (row.lastUpdateId > this.highest) this.highest = row.lastUpdateId;
    }
  }
}

/** Each organization's presence rows, for one server process. */
export class PresenceCache {
  private readonly realms = new Map<number, RealmPresences>();
  private sweptAt = Date.now();

  /** The rows of organization `realmId`, brought up to date on `db` first. */
  async rows(db: Db, realmId: number): Promise<Iterable<CachedPresence>> {
    const now = Date.now();
    if (now - this.sweptAt > IDLE_MS) this.sweep(now);
    let realm = this.realms.get(realmId);
    if (!realm) {
      realm = new RealmPresences(realmId);
      this.realms.set(realmId, realm);
    }
    realm.usedAt = now;
    await realm.update(db);
    return realm.rows.values();
  }

  /**
   * Marks one user's row stale (after a change to the user), in every
   * organization held: a row being read now may not be in `rows` yet.
   */
  forgetUser(userId: number): void {
    for (const realm of this.realms.values()) realm.stale.add(userId);
  }

  /** Marks an organization's rows stale: they are read whole on next use. */
  forgetRealm(realmId: number): void {
    const realm = this.realms.get(realmId);
    if (realm) realm.markAllStale();
  }

  /** Marks every row stale. */
  forgetAll(): void {
    for (const realm of this.realms.values()) realm.markAllStale();
  }

  /** Forgets the organizations not used for IDLE_MS. */
  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [id, realm] of this.realms) if (now - realm.usedAt > IDLE_MS) this.realms.delete(id);
  }
}

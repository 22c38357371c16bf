// The one way into the database. `openDatabase` picks the Prisma client for
// the provider in DATABASE_URL; `read` and `write` are the only doors, so that
// on SQLite no query can slip into somebody else's open transaction, and so
// that events are published only after the transaction that caused them commits.
import { Pool } from 'pg';
import { PrismaClient as SqliteClient, Prisma } from '../../generated/prisma/sqlite/client';
import type { PrismaClient as PostgresClient } from '../../generated/prisma/postgres/client';
import { ReadWriteLock } from './lock';
import { CachingPgAdapter } from './pg-statements';
import { PgTransactions } from './pg-transactions';
import { SqliteCheckpointer } from './sqlite-checkpoints';
import { CachingSqliteAdapter } from './sqlite-statements';
import type { Statements } from './statements';
import { parseDatabaseUrl } from './url';

/** The Prisma client; both providers' clients share this shape. */
export type Client = SqliteClient;
/** A client inside a transaction, or outside one; what reads take. */
export type Db = Prisma.TransactionClient;

/** Registers work to run once the current transaction has committed. */
export type OnCommit = (callback: () => void) => void;

/**
 * What a write with commit callbacks goes through: `enter` before its commit
 * (the commit waits for it), `leave` once its callbacks have run and their
 * events are settled, or it failed. See events/commit-marks.ts.
 */
export interface CommitGuard {
  enter(): Promise<void> | undefined;
  leave(): void;
}

/** Database options beyond the URL. */
export interface DatabaseOptions {
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Milliseconds a transaction may run before it is rolled back. */
  transactionTimeoutMs?: number;
  /** Where a problem that does not fail any one query is reported (SQLite's checkpoints). */
  warn?: (what: string, fields: Record<string, unknown>) => void;
}

/**
 * The prepared statements behind each client handed out by `read` and
 * `write` (the client itself, and each transaction while it runs): see
 * `queryRows`. The SQLite adapter has its statements once Prisma connects.
 */
const statementsOf = new WeakMap<Db, { readonly statements: Statements | null }>();

/**
 * A `.catch` handler for a write that stores a value another row holds
 * under a unique key: the write lost a race to an identical one, and is
 * refused with `refusal()` as a plain duplicate would be.
 */
export function refuseDuplicate(refusal: () => Error): (error: unknown) => never {
  return (error) => {
    if ((error as { code?: unknown }).code === 'P2002') throw refusal();
    throw error;
  };
}

/**
 * Runs a raw query on `db` and answers its rows, as `db.$queryRaw` would,
 * but on a prepared statement kept for its text, skipping Prisma's
 * interpreter and result mapping (as long again as the database's own work on
 * the busiest reads): see sqlite-statements.ts and pg-statements.ts. It runs
 * where `db` does: on SQLite's one connection, which whoever holds a `Db`
 * holds the lock of; on PostgreSQL on the pool, or on the connection of the
 * transaction `db` is. Errors come as the driver's, not Prisma's: use it where
 * no caller looks for a Prisma error code.
 */
export async function queryRows<T>(db: Db, query: Prisma.Sql): Promise<T[]> {
  const statements = statementsOf.get(db)?.statements;
  return statements ? statements.rows<T>(query) : db.$queryRaw<T[]>(query);
}

/** Runs a raw statement that returns no rows, as `db.$executeRaw` would; answers how many rows it changed. */
export async function executeRows(db: Db, query: Prisma.Sql): Promise<number> {
  const statements = statementsOf.get(db)?.statements;
  return statements ? statements.run(query) : db.$executeRaw(query);
}

/**
 * Time spent in the database since the process started, for metrics: calls
 * of `read` and `write` and their total milliseconds, from the call (waiting
 * for the connection included) to the result.
 */
export interface DatabaseTiming {
  reads: number;
  readMs: number;
  writes: number;
  writeMs: number;
}

/** The database, with its two doors. */
export class Database {
  private readonly lock: ReadWriteLock | null;
  /**
   * Waited for after the commit callbacks of a write have run, before the
   * write returns: set at start to wait until the events they published are
   * in their queues (which takes a round trip when the queues live in Redis).
   */
  settle: (() => Promise<void>) | null = null;
  /** Set at start when event queues live in Redis. */
  commitGuard: CommitGuard | null = null;
  /**
   * For tests only (CHAT_FAULT_KILL_AFTER_COMMIT=1): the first write with
   * commit callbacks kills this process with SIGKILL right after its commit,
   * before the callbacks publish its events.
   */
  killAfterCommit = false;
  /** Calls and time so far; plain sums, so that timing costs nothing per call but a clock read. */
  readonly timing: DatabaseTiming = { reads: 0, readMs: 0, writes: 0, writeMs: 0 };
  /** On PostgreSQL, the write transactions begun on the pool's connections. */
  private readonly pgTransactions: PgTransactions | null;

  constructor(
    /** The Prisma client; use `read` and `write` rather than this. */
    readonly client: Client,
    readonly provider: 'sqlite' | 'postgresql',
    private readonly transactionTimeoutMs = 15_000,
    /** The adapter whose statements `queryRows` uses. */
    private readonly adapter: CachingSqliteAdapter | CachingPgAdapter | null = null,
    /** On SQLite, what copies the log into the database file, off the event loop. */
    readonly checkpointer: SqliteCheckpointer | null = null,
    /** The PostgreSQL pool the adapter runs on, closed with the database. */
    private readonly pool: Pool | null = null,
  ) {
    this.lock = provider === 'sqlite' ? new ReadWriteLock() : null;
    if (adapter) statementsOf.set(client, adapter);
    this.pgTransactions =
      adapter instanceof CachingPgAdapter && pool
        ? new PgTransactions(pool, adapter, (run, options) => client.$transaction(run, options))
        : null;
  }

  /** Reads and writes waiting for the SQLite connection's lock (always 0 on PostgreSQL). */
  get lockWaiters(): number {
    return this.lock?.waiting ?? 0;
  }

  /** Runs reads outside any transaction. */
  read<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const started = performance.now();
    const done = this.lock ? this.lock.shared(() => fn(this.client)) : fn(this.client);
    return done.finally(() => {
      this.timing.reads += 1;
      this.timing.readMs += performance.now() - started;
    });
  }

  /**
   * Runs `fn` in one transaction. Callbacks given to `onCommit` (event
   * publication, cache invalidation) run after the commit, in order, and not at
   * all when the transaction fails; the write returns once `settle` has too.
   * `timeoutMs` lets a bulk load (an organization's import) run past the usual
   * transaction timeout.
   */
  async write<T>(
    fn: (tx: Db, onCommit: OnCommit) => Promise<T>,
    options: { timeoutMs?: number } = {},
  ): Promise<T> {
    const callbacks: (() => void)[] = [];
    const started = performance.now();
    const { adapter, commitGuard } = this;
    const timeoutMs = options.timeoutMs ?? this.transactionTimeoutMs;
    let guarded = false;
    const body = async (tx: Db) => {
      const result = await fn(tx, (cb) => callbacks.push(cb));
      if (callbacks.length > 0 && commitGuard && !guarded) {
        guarded = true;
        await commitGuard.enter();
      }
      return result;
    };
    let result: T;
    try {
      try {
        const sqlite = adapter instanceof CachingSqliteAdapter ? adapter.transactions : null;
        const postgres = this.pgTransactions;
        if (sqlite) {
          // On SQLite the client's own queries run inside the connection's transaction.
          result = await this.lock!.exclusive(() => sqlite.run(() => body(this.client), timeoutMs));
        } else if (postgres) {
          result = await postgres.run(
            (tx, statements) => {
              statementsOf.set(tx, { statements });
              return body(tx);
            },
            timeoutMs,
            this.transactionTimeoutMs,
          );
        } else {
          // openDatabase always gives one of the two adapters.
          throw new Error('the database has no adapter to begin transactions on');
        }
      } finally {
        this.timing.writes += 1;
        this.timing.writeMs += performance.now() - started;
      }
      if (this.killAfterCommit && callbacks.length > 0) process.kill(process.pid, 'SIGKILL');
      for (const callback of callbacks) callback();
      if (callbacks.length > 0 && this.settle) await this.settle();
    } finally {
      if (guarded) commitGuard!.leave();
    }
    return result;
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    // The worker's connection closes first, so that the server's, closing
    // last, copies what is left of the log and removes it.
    await this.checkpointer?.stop();
    await this.client.$disconnect();
    await this.pool?.end();
  }
}

/** Opens the database at `url` (already migrated) with the matching client. */
export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<Database> {
  const target = parseDatabaseUrl(url);
  if (target.provider === 'sqlite') {
    const adapter = new CachingSqliteAdapter({ url: target.file, timeout: 5000 });
    const client = new SqliteClient({ adapter });
    await client.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await client.$executeRawUnsafe('PRAGMA foreign_keys = ON');
    await client.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
    const checkpointer = await SqliteCheckpointer.start(
      target.file,
      adapter.connection!,
      options.warn ?? (() => undefined),
    );
    return new Database(client, 'sqlite', options.transactionTimeoutMs, adapter, checkpointer);
  }
  // The pool is ours, so that raw queries run on it as prepared statements (pg-statements.ts).
  const pool = new Pool({
    connectionString: target.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    // Raw queries name tables without a schema; make them find the right ones.
    ...(target.schema ? { options: `-c search_path="${target.schema}"` } : {}),
  });
  // An idle connection that breaks (the database restarting) is noticed by the
  // next query on it; without a listener its error would end the process.
  pool.on('error', () => undefined);
  const adapter = new CachingPgAdapter(pool, target.schema ? { schema: target.schema } : undefined);
  // Loaded only here: a process on SQLite does without its megabyte of code.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PrismaClient } = require('../../generated/prisma/postgres/client') as {
    PrismaClient: typeof PostgresClient;
  };
  // Both generated clients come from one schema and differ only in the provider's
  // name, so the SQLite client's type stands for both.
  const client = new PrismaClient({ adapter }) as unknown as Client;
  return new Database(client, 'postgresql', options.transactionTimeoutMs, adapter, null, pool);
}

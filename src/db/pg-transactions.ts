// Write transactions on PostgreSQL, begun and ended by the server itself on a
// connection of the pool rather than as Prisma's interactive transactions:
// the counterpart of sqlite-transactions.ts.
//
// Prisma's interactive transaction costs its bookkeeping on every write (an
// identifier, timers, a client made for the transaction, BEGIN and COMMIT
// through its query interpreter), and its transactions had to begin one after
// another so that the connection each took could be told apart. Here a write
// takes a connection, sends BEGIN and COMMIT as prepared statements, and runs
// its raw queries (`queryRows`, `executeRows`) on that connection directly.
//
// A body may also use Prisma's model API. The first such query opens one
// interactive transaction of Prisma's on the same connection, whose BEGIN,
// COMMIT and ROLLBACK are left to this write (see CachingPgAdapter.phantom):
// every later query of the body, raw or not, runs on that one connection, in
// the order asked. A write that makes no such query (a send) never enters
// Prisma's transaction machinery.
//
// A body that runs past its time limit is rolled back once it returns, and the
// write fails with Prisma's code for an expired transaction, as on SQLite.
import type { Pool } from 'pg';
import type { Prisma } from '../../generated/prisma/sqlite/client';
import { DatabaseConnectionError, type CachingPgAdapter } from './pg-statements';
import { TransactionExpired } from './sqlite-transactions';
import type { RawQuery, Statements } from './statements';

type Db = Prisma.TransactionClient;

/** A statement without parameters, as the prepared statements take it. */
const control = (text: string): RawQuery => ({ sql: text, text, values: [] });
const BEGIN = control('BEGIN');
const COMMIT = control('COMMIT');
const ROLLBACK = control('ROLLBACK');

/** What opens Prisma's transaction on a write's connection. */
type PrismaTransactionStarter = <T>(
  run: (tx: Db) => Promise<T>,
  options: { timeout: number; maxWait: number },
) => Promise<T>;

/**
 * The Prisma interactive transaction of one write, opened at its first model
 * query on the write's connection and held open until the write ends.
 */
class LazyPrismaTransaction {
  private opened: Promise<Db> | null = null;
  private settled: Promise<unknown> | null = null;
  private finish: ((ok: boolean) => void) | null = null;

  constructor(
    private readonly start: PrismaTransactionStarter,
    private readonly timeoutMs: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Prisma's transaction client, opening the transaction on first use. */
  client(): Promise<Db> {
    return (this.opened ??= new Promise<Db>((ready, fail) => {
      const held = new Promise<boolean>((resolve) => (this.finish = resolve));
      this.settled = this.start(
        async (tx) => {
          ready(tx);
          if (!(await held)) throw new Error('the write failed');
        },
        { timeout: this.timeoutMs, maxWait: this.maxWaitMs },
      );
      // A transaction that failed to open fails the query that asked for it.
      this.settled.catch(fail);
    }));
  }

  /** Ends Prisma's transaction, if open: it sends nothing (the write commits or rolls back). */
  async end(ok: boolean): Promise<void> {
    if (!this.opened) return;
    this.finish?.(ok);
    try {
      await this.settled;
    } catch (error) {
      // Prisma's own timer may have ended it: the body's later queries failed then.
      if (ok) throw error;
    }
  }
}

/**
 * The client a write's body gets: Prisma's model API and raw methods reach
 * the write's Prisma transaction, opened on first use. Each delegate and
 * method is made once per write, on the first access.
 */
function lazyClient(prisma: LazyPrismaTransaction): Db {
  // A method of the transaction client (`owner` null: `$queryRaw` and the
  // like) or of one of its model delegates, called on what it belongs to.
  const forward =
    (owner: string | null, method: string) =>
    async (...args: unknown[]) => {
      const tx = (await prisma.client()) as unknown as Record<string, unknown>;
      const target = (owner === null ? tx : tx[owner]) as Record<string, unknown>;
      return Reflect.apply(target[method] as (...a: unknown[]) => unknown, target, args);
    };
  const members = new Map<string | symbol, unknown>();
  const delegateOf = (model: string) => {
    const methods = new Map<string | symbol, unknown>();
    return new Proxy(
      {},
      {
        get: (_, method) => {
          if (typeof method !== 'string' || method === 'then') return undefined;
          let found = methods.get(method);
          if (!found) methods.set(method, (found = forward(model, method)));
          return found;
        },
      },
    );
  };
  return new Proxy({} as Db, {
    get: (_, name) => {
      // Not a promise: an async function may return the client itself.
      if (typeof name !== 'string' || name === 'then') return undefined;
      let found = members.get(name);
      if (!found)
        members.set(name, (found = name.startsWith('$') ? forward(null, name) : delegateOf(name)));
      return found;
    },
  });
}

/** Begins, commits and rolls back write transactions on the pool's connections. */
export class PgTransactions {
  constructor(
    private readonly pool: Pool,
    private readonly adapter: CachingPgAdapter,
    private readonly startPrisma: PrismaTransactionStarter,
  ) {}

  /**
   * Runs `body` in one transaction on a connection of its own: commits when
   * `body` succeeds within `timeoutMs`, and rolls back otherwise. `body` gets
   * the write's client and the prepared statements of its connection.
   */
  async run<T>(
    body: (tx: Db, statements: Statements) => Promise<T>,
    timeoutMs: number,
    maxWaitMs: number,
  ): Promise<T> {
    const connection = await this.pool.connect().catch((error: unknown) => {
      throw new DatabaseConnectionError(error);
    });
    // A reset while the connection is checked out fails its next query; the
    // pool then drops it rather than handing it out again.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken ??= error);
    connection.on('error', onError);
    const statements = this.adapter.statements.on(connection);
    const prisma = new LazyPrismaTransaction(
      (run, options) => this.adapter.phantom(connection, () => this.startPrisma(run, options)),
      timeoutMs,
      maxWaitMs,
    );
    const started = performance.now();
    try {
      await statements.run(BEGIN);
      const result = await body(lazyClient(prisma), statements);
      if (performance.now() - started > timeoutMs) throw new TransactionExpired(timeoutMs);
      await prisma.end(true);
      await statements.run(COMMIT);
      return result;
    } catch (error) {
      await prisma.end(false);
      // A connection that failed has no transaction left to roll back.
      if (error instanceof DatabaseConnectionError) broken ??= error;
      else
        await Promise.resolve(statements.run(ROLLBACK)).catch((failure: Error) => {
          broken ??= failure;
        });
      throw error;
    } finally {
      connection.off('error', onError);
      connection.release(broken);
    }
  }
}

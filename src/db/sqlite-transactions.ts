// Write transactions on the SQLite connection, begun and ended by the server
// itself rather than as Prisma's interactive transactions.
//
// On SQLite every write already runs alone on the one connection (the
// readers-writer lock of lock.ts), so an interactive transaction of Prisma's
// adds only its own bookkeeping: an identifier, timers, a client made for the
// transaction, and a COMMIT sent through its query interpreter. An empty write
// cost 68-126 µs of CPU that way, more than all the statements of a send.
// Here BEGIN IMMEDIATE and COMMIT are cached statements, and the body is given
// the ordinary client: its queries run on the same connection, so inside the
// transaction. A query for which Prisma begins a transaction of its own (a
// nested write, say) gets a savepoint in this one instead.
//
// A body that runs past its time limit is rolled back once it returns, as
// Prisma's transaction would have been, and the write fails with Prisma's code
// for an expired transaction.
/** Runs a cached statement on the connection (sqlite-statements.ts). */
interface StatementRunner {
  runOf(source: string, args: readonly unknown[]): number;
}

/** A raw query as Prisma's driver adapters take it. */
type AdapterQuery = { sql: string; args: unknown[]; argTypes: unknown[] };

/** The parts of Prisma's better-sqlite3 adapter that transactions use. */
export interface SqliteAdapter {
  readonly provider: string;
  readonly adapterName: string;
  queryRaw(query: AdapterQuery): Promise<unknown>;
  executeRaw(query: AdapterQuery): Promise<number>;
  startTransaction(isolationLevel?: string): Promise<unknown>;
}

/** A write that ran past its time limit; Prisma's code, so that it is answered as Prisma's is. */
export class TransactionExpired extends Error {
  readonly code = 'P2028';
  constructor(timeoutMs: number) {
    super(`The transaction ran longer than ${timeoutMs} ms and was rolled back.`);
    this.name = 'TransactionExpired';
  }
}

/** Begins, commits and rolls back the connection's write transactions. */
export class SqliteTransactions {
  /** Whether a transaction begun by `run` is open. */
  private open = false;
  /** How many savepoints are open inside it. */
  private depth = 0;

  constructor(
    private readonly adapter: SqliteAdapter,
    private readonly statements: StatementRunner,
    private readonly inTransaction: () => boolean,
  ) {
    const start = adapter.startTransaction.bind(adapter);
    // Prisma reads this method from the adapter on each transaction it begins.
    adapter.startTransaction = (isolationLevel) =>
      this.open ? Promise.resolve(this.savepoint()) : start(isolationLevel);
  }

  /**
   * Runs `body` in one transaction, which the caller alone may use (it holds
   * the connection's write lock); commits when `body` succeeds within
   * `timeoutMs`, and rolls back otherwise.
   */
  async run<T>(body: () => Promise<T>, timeoutMs: number): Promise<T> {
    const { statements } = this;
    statements.runOf('BEGIN IMMEDIATE', []);
    this.open = true;
    const started = performance.now();
    try {
      const result = await body();
      if (performance.now() - started > timeoutMs) throw new TransactionExpired(timeoutMs);
      statements.runOf('COMMIT', []);
      return result;
    } catch (error) {
      // A failed statement may have ended the transaction already.
      if (this.inTransaction()) statements.runOf('ROLLBACK', []);
      throw error;
    } finally {
      this.open = false;
      this.depth = 0;
    }
  }

  /** A transaction Prisma begins inside one of ours: a savepoint, released or rolled back to. */
  private savepoint() {
    const { adapter, statements } = this;
    // Named by depth, so that the statement cache holds a few texts.
    const name = `prisma_${++this.depth}`;
    statements.runOf(`SAVEPOINT ${name}`, []);
    return {
      provider: adapter.provider,
      adapterName: adapter.adapterName,
      // Prisma sends no COMMIT or ROLLBACK of its own: it calls these.
      options: { usePhantomQuery: true },
      queryRaw: (query: AdapterQuery) => adapter.queryRaw(query),
      executeRaw: (query: AdapterQuery) => adapter.executeRaw(query),
      commit: async () => {
        this.depth -= 1;
        statements.runOf(`RELEASE ${name}`, []);
      },
      rollback: async () => {
        this.depth -= 1;
        statements.runOf(`ROLLBACK TO ${name}`, []);
        statements.runOf(`RELEASE ${name}`, []);
      },
    };
  }
}

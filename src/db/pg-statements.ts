// Prepared statements kept on each PostgreSQL connection, and a direct way to
// run the busiest queries on them: the counterpart of sqlite-statements.ts.
//
// Prisma's pg adapter sends every query as an unnamed statement, which
// PostgreSQL parses and plans anew, and a raw query through Prisma spends as
// long again in its query interpreter and result mapping: GET /users/me cost
// about twice the server's CPU on PostgreSQL that it costs on SQLite. Here a
// raw query runs on the adapter's own pool (or on the connection of the
// transaction it belongs to) as a named statement: parsed on a connection the
// first time that connection meets the text, then only bound and executed.
// The values come back as Prisma's raw queries give them on PostgreSQL (int8
// as bigint, timestamps as dates in UTC, numeric as Decimal), and arguments
// go as Prisma's adapter sends them (dates as UTC text).
//
// Each connection keeps at most STATEMENT_CACHE_SIZE texts, the least
// recently used going first. A text pushed out is DEALLOCATEd on its
// connection while that is in no transaction (a failing DEALLOCATE would
// abort the transaction); inside one, a text new to a full connection runs
// unnamed. Names are never reused, so a statement left behind is never
// mistaken for another.
import { DatabaseError, types, type Client, type ClientBase, type Pool, type PoolClient } from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma } from '../../generated/prisma/sqlite/client';
import {
  objectBuilder,
  STATEMENT_CACHE_SIZE,
  type RawQuery,
  type RowObject as Row,
  type Statements,
} from './statements';

interface Entry {
  /** The statement's name on its connection. */
  name: string;
  /** Turns a row's values into an object (the columns of a text never change: no migration runs meanwhile). */
  toObject: ((values: unknown[]) => Row) | null;
}

/** Each value as Prisma's pg adapter and raw-query mapping read it, where pg's own parser differs. */
const parsers: Record<number, (text: string) => unknown> = {
  20: (text) => BigInt(text), // int8
  26: (text) => BigInt(text), // oid
  1082: (text) => new Date(text), // date
  1114: (text) => new Date(`${text.replace(' ', 'T')}+00:00`), // timestamp, stored in UTC
  // timestamptz, its offset replaced by UTC's as Prisma does (sessions run in UTC).
  1184: (text) => new Date(text.replace(' ', 'T').replace(/[+-]\d{2}(:\d{2})?$/, '+00:00')),
  1700: (text) => new Prisma.Decimal(text), // numeric
};
const typeParsers = {
  getTypeParser: (oid: number, format?: string) =>
    parsers[oid] ?? types.getTypeParser(oid, format as 'text'),
};

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date as Prisma's pg adapter sends it: UTC, without a zone, milliseconds when any. */
function formatDateTime(date: Date): string {
  const ms = date.getUTCMilliseconds();
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ''}`;
}

/** An argument as Prisma's pg adapter binds it (pg itself sends booleans, numbers and bigints as text). */
function bindable(value: unknown): unknown {
  return value instanceof Date ? formatDateTime(value) : value;
}

declare module 'pg' {
  interface Connection {
    /** The statement names pg has had parsed on this connection, with their text (undeclared in pg's types). */
    parsedStatements: Record<string, string>;
  }
}

/** The names pg has seen parsed on a connection: a pool's connections are Clients. */
function parsedStatements(client: ClientBase): Record<string, string> {
  return (client as Client).connection.parsedStatements;
}

/**
 * A connection of the pool failed (the database refused it, reset it or went
 * away) under a raw query: the HTTP layer answers it 503, as it answers
 * Prisma's own connection errors.
 */
export class DatabaseConnectionError extends Error {
  override readonly name = 'DatabaseConnectionError';

  constructor(readonly cause: unknown) {
    super(
      `the database connection failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

let statementCount = 0;

/** Each transaction connection's last query, which the next one waits for. */
const turns = new WeakMap<ClientBase, Promise<unknown>>();

/**
 * Runs the queries of a transaction's connection one at a time, in the order
 * asked, whether Prisma's adapter or these statements send them: queries a
 * transaction starts side by side (a Promise.all) would otherwise be queued
 * on the connection by pg, which warns of it and will refuse it.
 */
function inTurn<T>(connection: ClientBase, run: () => Promise<T>): Promise<T> {
  const next = (turns.get(connection) ?? Promise.resolve()).then(run, run);
  turns.set(
    connection,
    next.catch(() => undefined),
  );
  return next;
}

/** The prepared statements of a pool's connections. */
export class PgStatements implements Statements {
  /** Each connection's statements, by SQL text, least recently used first. */
  private readonly prepared = new WeakMap<ClientBase, Map<string, Entry>>();

  constructor(
    private readonly pool: Pool,
    private readonly capacity = STATEMENT_CACHE_SIZE,
  ) {}

  /** The rows a query returns on one of the pool's connections, as objects with Prisma's value types. */
  rows<T>(query: RawQuery): Promise<T[]> {
    return this.rowsOn<T>(null, query);
  }

  /** Runs a statement that returns no rows on one of the pool's connections; answers how many rows it changed. */
  async run(query: RawQuery): Promise<number> {
    return (await this.execute(null, query)).result.rowCount ?? 0;
  }

  /** The statements of a transaction, on its connection, each in its turn (see `inTurn`). */
  on(connection: PoolClient): Statements {
    return {
      rows: <T>(query: RawQuery) => inTurn(connection, () => this.rowsOn<T>(connection, query)),
      run: (query: RawQuery) =>
        inTurn(
          connection,
          async () => (await this.execute(connection, query)).result.rowCount ?? 0,
        ),
    };
  }

  private async rowsOn<T>(connection: PoolClient | null, query: RawQuery): Promise<T[]> {
    const { entry, result } = await this.execute(connection, query);
    const names = () => result.fields.map((f) => f.name);
    const toObject = entry ? (entry.toObject ??= objectBuilder(names())) : objectBuilder(names());
    return result.rows.map(toObject) as T[];
  }

  /** Runs `query` on `connection`, or on a connection of the pool when null. */
  private async execute(connection: PoolClient | null, query: RawQuery) {
    const client =
      connection ??
      (await this.pool.connect().catch((error: unknown) => {
        throw new DatabaseConnectionError(error);
      }));
    let failure: Error | undefined;
    // While it is checked out, a connection of the pool has no listener for
    // its errors, and a reset (the database going away) would be thrown as an
    // uncaught 'error' event: the query fails with it anyway.
    const onError = (error: Error) => (failure ??= error);
    if (!connection) client.on('error', onError);
    try {
      const entry = this.entry(client, query.text, connection === null);
      const result = await client.query<unknown[]>({
        name: entry?.name,
        text: query.text,
        values: query.values.map(bindable),
        rowMode: 'array',
        types: typeParsers,
      });
      return { entry, result };
    } catch (error) {
      // An error the server answered leaves the connection usable; any other drops it.
      if (error instanceof DatabaseError) throw error;
      failure = error as Error;
      throw new DatabaseConnectionError(error);
    } finally {
      if (!connection) {
        client.off('error', onError);
        client.release(failure);
      }
    }
  }

  /**
   * The statement of `text` on `client`, made the most recently used; null
   * when it runs unnamed (new to a full connection in a transaction).
   */
  private entry(client: ClientBase, text: string, idle: boolean): Entry | null {
    let entries = this.prepared.get(client);
    if (!entries) this.prepared.set(client, (entries = new Map()));
    let entry = entries.get(text);
    if (entry) {
      entries.delete(text); // re-inserted below as the most recently used
    } else {
      if (entries.size >= this.capacity) {
        if (!idle) return null;
        const [oldest, { name }] = entries.entries().next().value!;
        entries.delete(oldest);
        // Queued before the query that follows on this connection; nothing waits for it.
        if (parsedStatements(client)[name] !== undefined)
          client.query(`DEALLOCATE "${name}"`).catch(() => undefined);
        delete parsedStatements(client)[name];
      }
      entry = { name: `chat_${++statementCount}`, toObject: null };
    }
    entries.set(text, entry);
    return entry;
  }
}

/** The parts of Prisma's pg adapter (its queryable) that a transaction of ours borrows. */
interface PgQueryable {
  client: unknown;
  performIO(query: unknown): Promise<unknown>;
  startTransaction(isolationLevel?: string): Promise<unknown>;
}

/**
 * The pg adapter on a pool of our own, whose statements (`statements`) run
 * on that pool and on the connections of write transactions (pg-transactions.ts).
 */
export class CachingPgAdapter extends PrismaPg {
  readonly statements: PgStatements;
  /** The connected adapter, whose queries run on the pool. */
  private queryable: PgQueryable | null = null;
  /** The connection the Prisma transaction being begun is to run on (see `phantom`). */
  private slot: { connection: PoolClient; taken: () => void } | null = null;
  /** Settles when the Prisma transaction begun last has taken its connection. */
  private beginning: Promise<void> = Promise.resolve();

  constructor(pool: Pool, options?: ConstructorParameters<typeof PrismaPg>[1]) {
    super(pool, options);
    this.statements = new PgStatements(pool);
  }

  override async connect() {
    const adapter = await super.connect();
    const queryable = adapter as unknown as PgQueryable;
    this.queryable = queryable;
    const start = queryable.startTransaction.bind(adapter);
    queryable.startTransaction = async (isolationLevel) => {
      const slot = this.slot; // taken at the call, before any other can begin
      this.slot = null;
      if (!slot) return start(isolationLevel);
      slot.taken();
      return this.transactionOn(slot.connection);
    };
    return adapter;
  }

  /**
   * Runs `begin`, which begins one Prisma transaction: that one runs on
   * `connection`, inside the transaction already open there, and sends no
   * BEGIN, COMMIT or ROLLBACK of its own. Prisma does not say which call of
   * the adapter's startTransaction is whose, so these begin one after the
   * other, each once the one before has taken its connection. That call is
   * this one's: Prisma begins a transaction of its own only for a write
   * through the model API, and those run inside writes, whose Prisma
   * transactions all begin here. An AsyncLocalStorage would tell it without
   * the wait, but on Node 20 it puts a hook on every promise of the process.
   */
  async phantom<T>(connection: PoolClient, begin: () => Promise<T>): Promise<T> {
    const previous = this.beginning;
    let taken!: () => void;
    this.beginning = new Promise((resolve) => (taken = resolve));
    await previous;
    const slot = { connection, taken };
    this.slot = slot;
    // A transaction that fails before taking the connection lets the next one begin.
    const release = () => {
      if (this.slot === slot) this.slot = null;
      taken();
    };
    const run = begin();
    run.then(release, release);
    return run;
  }

  /** A transaction of Prisma's on `connection`: the adapter's queries, run there in turn. */
  private transactionOn(connection: PoolClient) {
    const queryable = this.queryable!;
    const performIO = queryable.performIO;
    const transaction = Object.create(queryable) as PgQueryable & Record<string, unknown>;
    transaction.client = connection;
    transaction.performIO = (query: unknown) =>
      inTurn(connection, () => performIO.call(transaction, query));
    // Prisma calls these in place of sending COMMIT or ROLLBACK; the write sends its own.
    transaction.options = { usePhantomQuery: true };
    transaction.commit = async () => undefined;
    transaction.rollback = async () => undefined;
    const run = (sql: string) =>
      (transaction.executeRaw as (query: unknown) => Promise<number>)({
        sql,
        args: [],
        argTypes: [],
      });
    transaction.createSavepoint = (name: string) => run(`SAVEPOINT ${name}`);
    transaction.rollbackToSavepoint = (name: string) => run(`ROLLBACK TO SAVEPOINT ${name}`);
    transaction.releaseSavepoint = (name: string) => run(`RELEASE SAVEPOINT ${name}`);
    return transaction;
  }
}

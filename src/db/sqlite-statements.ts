// Prepared statements kept across queries on the SQLite connection, and a
// direct way to run the busiest queries on them.
//
// Prisma's better-sqlite3 adapter prepares every statement anew
// (`prepare(sql).bind(args)`), and SQLite's parsing and planning of our larger
// queries (the narrows of GET /messages, the send path's inserts) took more
// time than running them: `prepare` was a tenth of the CPU profile of reading
// messages. The connection's `prepare` is wrapped so that each SQL text is
// prepared once and kept in a bounded least-recently-used cache; what the
// adapter gets back behaves as a statement bound to its arguments, while the
// cached statement itself stays unbound and reusable.
//
// Past the statement, a raw query through Prisma still spends about as long
// again in Prisma's query interpreter and result mapping as SQLite spends
// running it. `rows` and `run` execute a query on the same connection (and so
// inside the caller's transaction, if any) and convert the values as Prisma's
// raw queries do: see `queryRows` in client.ts for why that is safe.
//
// The server changes no schema while it runs (migrations come first), so a
// statement's column descriptions, read once, stay true.
import type BetterSqlite3 from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { SqliteTransactions, type SqliteAdapter } from './sqlite-transactions';
import {
  objectBuilder,
  STATEMENT_CACHE_SIZE,
  type RawQuery,
  type RowObject as Row,
  type Statements,
} from './statements';

type Statement = BetterSqlite3.Statement<unknown[]>;

interface Entry {
  statement: Statement;
  /** Column descriptions (better-sqlite3 builds them anew on every `columns()` call). */
  columns: BetterSqlite3.ColumnDefinition[] | null;
  /** Turns a raw row into an object with Prisma's value types. */
  toObject: ((values: unknown[]) => Row) | null;
}

function columnsOf(entry: Entry): BetterSqlite3.ColumnDefinition[] {
  return (entry.columns ??= entry.statement.columns());
}

const same = (value: unknown) => value;

/** The conversion of one column, by its declared type, as Prisma maps raw results. */
function converterOf(declared: string | null): (value: unknown) => unknown {
  switch (declared?.toUpperCase()) {
    case 'BOOLEAN':
      return (value) => (value === null ? null : Number(value) !== 0);
    case 'DATETIME':
      return (value) => (value === null ? null : new Date(value as string | number));
    default:
      return same;
  }
}

/** The builder of a statement's row objects, converting each column by its declared type. */
function rowBuilder(columns: BetterSqlite3.ColumnDefinition[]): (values: unknown[]) => Row {
  return objectBuilder(
    columns.map((c) => c.name),
    columns.map((c) => converterOf(c.type)),
  );
}

/** An argument as the adapter would bind it. */
function bindable(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString().replace('Z', '+00:00');
  return value;
}

/** The prepared statements of one connection. */
export class StatementCache implements Statements {
  private readonly entries = new Map<string, Entry>();
  private readonly prepare: (source: string) => Statement;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly capacity = STATEMENT_CACHE_SIZE,
  ) {
    this.prepare = connection.prepare.bind(connection) as (source: string) => Statement;
  }

  private entry(source: string): Entry {
    let entry = this.entries.get(source);
    if (entry) {
      this.entries.delete(source); // re-inserted below as the most recently used
    } else {
      entry = { statement: this.prepare(source), columns: null, toObject: null };
      if (this.entries.size >= this.capacity)
        this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(source, entry);
    return entry;
  }

  /** The rows a query returns, as objects with Prisma's value types. */
  rows<T>(query: RawQuery): T[] {
    return this.rowsOf<T>(query.sql, query.values);
  }

  /** Runs a statement that returns no rows; answers how many rows it changed. */
  run(query: RawQuery): number {
    return this.runOf(query.sql, query.values);
  }

  /** The rows the SQL text `source` returns with `args` bound to its `?` placeholders. */
  rowsOf<T>(source: string, args: readonly unknown[]): T[] {
    const entry = this.entry(source);
    const toObject = (entry.toObject ??= rowBuilder(columnsOf(entry)));
    // Integers as numbers here (our columns hold none past 2^53), which
    // spares a bigint per value; the adapter's own reads keep its setting.
    return (
      entry.statement.raw(true).safeIntegers(false).all(args.map(bindable)) as unknown[][]
    ).map(toObject) as T[];
  }

  /** Runs the SQL text `source` with `args`; answers how many rows it changed. */
  runOf(source: string, args: readonly unknown[]): number {
    return this.entry(source).statement.run(args.map(bindable)).changes;
  }

  /**
   * Replaces the connection's `prepare` with the cached one, in the shape the
   * adapter uses: bound once, then run or read as raw rows, with integers as
   * bigints (the adapter's own setting for its connection).
   */
  install(): void {
    const adapterView = (source: string) => {
      const entry = this.entry(source);
      const { statement } = entry;
      return {
        reader: statement.reader,
        columns: () => columnsOf(entry),
        run: () => statement.safeIntegers(true).run(),
        bind: (args: unknown[]) => ({
          reader: statement.reader,
          columns: () => columnsOf(entry),
          run: () => statement.safeIntegers(true).run(args),
          raw: () => ({ all: () => statement.raw(true).safeIntegers(true).all(args) }),
        }),
      };
    };
    // Shadows the driver's prepare on this connection alone.
    Object.defineProperty(this.connection, 'prepare', { value: adapterView, configurable: true });
  }
}

/** The better-sqlite3 adapter whose connection keeps its prepared statements (see `statements`). */
export class CachingSqliteAdapter extends PrismaBetterSqlite3 {
  /** The connection's statements, once Prisma has connected. */
  statements: StatementCache | null = null;
  /** The better-sqlite3 connection, once Prisma has connected. */
  connection: BetterSqlite3.Database | null = null;
  /** The connection's write transactions, once Prisma has connected. */
  transactions: SqliteTransactions | null = null;

  override async connect() {
    const adapter = await super.connect();
    // The adapter keeps its better-sqlite3 connection in a field it does not declare.
    this.connection = (adapter as unknown as { client: BetterSqlite3.Database }).client;
    const connection = this.connection;
    this.statements = new StatementCache(connection);
    this.statements.install();
    this.transactions = new SqliteTransactions(
      adapter as unknown as SqliteAdapter,
      this.statements,
      () => connection.inTransaction,
    );
    return adapter;
  }
}

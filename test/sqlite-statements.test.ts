// Raw queries on the hot paths go through `queryRows` and `executeRows`,
// which on SQLite run on the connection's cached statements instead of
// through Prisma. They must answer exactly what Prisma would, and run inside
// the caller's transaction; the statement cache must reuse and evict.
import Database from 'better-sqlite3';
import { Prisma } from '../generated/prisma/sqlite/client';
import { executeRows, queryRows } from '../src/db/client';
import { StatementCache } from '../src/db/sqlite-statements';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let messageId: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  const sent = await server.call('POST', '/messages', {
    as: cast.owner,
    params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'hello **there**' },
  });
  messageId = sent.body.id as number;
});
afterAll(() => server.stop());

/** Prisma answers integers of expressions as bigints; the API code reads both with Number(). */
function plain(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]),
    ),
  );
}

test('rows come back with the values Prisma gives: integers, text, booleans, dates, nulls, expressions', async () => {
  const query = Prisma.sql`
    SELECT m.*, um."read", um."starred", um."userId", COUNT(*) OVER () AS "total", m."id" + 1 AS "next"
    FROM "Message" m JOIN "UserMessage" um ON um."messageId" = m."id"
    WHERE m."id" = ${messageId} ORDER BY um."userId"`;
  const [direct, prisma] = await server.services.db.read(async (db) => [
    await queryRows<Record<string, unknown>>(db, query),
    await db.$queryRaw<Record<string, unknown>[]>(query),
  ]);
  expect(direct).toHaveLength(2);
  expect(plain(direct)).toEqual(plain(prisma));
  const [first] = direct;
  expect(first.dateSent).toBeInstanceOf(Date);
  expect(first.lastEditTime).toBeNull();
  expect(typeof first.read).toBe('boolean');
  expect(typeof first.senderId).toBe('number');
  expect(first.content).toBe('hello **there**');
});

test('arguments bind as Prisma binds them: booleans, dates and text', async () => {
  const since = new Date(Date.now() - 60_000);
  const query = Prisma.sql`SELECT COUNT(*) AS "n" FROM "Message" m JOIN "UserMessage" um ON um."messageId" = m."id"
    WHERE m."dateSent" >= ${since} AND um."read" = ${false} AND m."content" = ${'hello **there**'}`;
  const [direct, prisma] = await server.services.db.read(async (db) => [
    await queryRows<{ n: unknown }>(db, query),
    await db.$queryRaw<{ n: unknown }[]>(query),
  ]);
  expect(Number(direct[0].n)).toBeGreaterThan(0); // at least the recipient's row
  expect(Number(direct[0].n)).toBe(Number(prisma[0].n));
});

test('inside a transaction they see its writes, and are rolled back with it', async () => {
  class Planned extends Error {}
  const outcome = await server.services.db
    .write(async (tx) => {
      const changed = await executeRows(
        tx,
        Prisma.sql`UPDATE "UserMessage" SET "starred" = ${true} WHERE "messageId" = ${messageId}`,
      );
      expect(changed).toBe(2);
      const seen = await queryRows<{ starred: boolean }>(
        tx,
        Prisma.sql`SELECT "starred" FROM "UserMessage" WHERE "messageId" = ${messageId}`,
      );
      expect(seen.map((r) => r.starred)).toEqual([true, true]);
      throw new Planned();
    })
    .catch((error) => error);
  expect(outcome).toBeInstanceOf(Planned);
  const after = await server.services.db.read((db) =>
    queryRows<{ starred: boolean }>(
      db,
      Prisma.sql`SELECT "starred" FROM "UserMessage" WHERE "messageId" = ${messageId}`,
    ),
  );
  expect(after.map((r) => r.starred)).toEqual([false, false]);
  const res = await server.call('GET', `/messages/${messageId}`, { as: cast.member });
  expect(res.body.message.flags).not.toContain('starred');
});

describe('the statement cache', () => {
  let connection: Database.Database;
  let prepared: string[];

  beforeEach(() => {
    connection = new Database(':memory:');
    connection.exec(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, flag BOOLEAN, at DATETIME, name TEXT)',
    );
    prepared = [];
    const prepare = connection.prepare.bind(connection);
    connection.prepare = ((source: string) => {
      prepared.push(source);
      return prepare(source);
    }) as typeof connection.prepare;
  });
  afterEach(() => connection.close());

  test('prepares each text once, binds fresh arguments each time, and evicts the least recently used', () => {
    const cache = new StatementCache(connection, 2);
    const insert = 'INSERT INTO t (id, flag, at, name) VALUES (?, ?, ?, ?)';
    cache.runOf(insert, [1, true, new Date('2026-01-02T03:04:05Z'), 'one']);
    cache.runOf(insert, [2, false, null, 'two']);
    expect(cache.rowsOf('SELECT * FROM t WHERE id = ?', [1])).toEqual([
      { id: 1, flag: true, at: new Date('2026-01-02T03:04:05Z'), name: 'one' },
    ]);
    expect(cache.rowsOf('SELECT * FROM t WHERE id = ?', [2])).toEqual([
      { id: 2, flag: false, at: null, name: 'two' },
    ]);
    expect(prepared).toEqual([insert, 'SELECT * FROM t WHERE id = ?']);

    cache.rowsOf('SELECT name FROM t', []); // a third text: the insert, least recently used, goes
    cache.runOf(insert, [3, true, null, 'three']);
    expect(prepared).toEqual([
      insert,
      'SELECT * FROM t WHERE id = ?',
      'SELECT name FROM t',
      insert,
    ]);
    expect(cache.rowsOf('SELECT name FROM t', []).map((r) => (r as { name: string }).name)).toEqual(
      ['one', 'two', 'three'],
    );
  });

  test('a column named __proto__ is a property of the row, not its prototype', () => {
    const [row] = new StatementCache(connection).rowsOf<Record<string, unknown>>(
      'SELECT 1 AS "__proto__", 2 AS "two"',
      [],
    );
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
    expect(row.two).toBe(2);
  });

  test('the adapter view runs bound statements and reads raw rows', () => {
    const cache = new StatementCache(connection);
    cache.install();
    const view = connection.prepare('INSERT INTO t (id, name) VALUES (?, ?)') as unknown as {
      bind(args: unknown[]): { run(): { changes: number } };
    };
    expect(view.bind([7, 'seven']).run().changes).toBe(1);
    const select = connection.prepare('SELECT id, name FROM t') as unknown as {
      reader: boolean;
      bind(args: unknown[]): { raw(): { all(): unknown[][] }; columns(): { name: string }[] };
    };
    expect(select.reader).toBe(true);
    const bound = select.bind([]);
    expect(bound.columns().map((c) => c.name)).toEqual(['id', 'name']);
    expect(bound.raw().all()).toEqual([[7n, 'seven']]); // integers as bigints, as the adapter reads them
    expect(prepared).toHaveLength(2);
  });
});

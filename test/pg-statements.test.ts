// On PostgreSQL, raw queries on the hot paths (`queryRows`, `executeRows`)
// run as named prepared statements on the pool of Prisma's adapter, or on the
// connection of the transaction they belong to. They must answer exactly what
// Prisma's raw queries answer, value types included; run on their
// transaction's connection even while others begin; and each connection's
// statements must be reused and evicted. Skipped on SQLite
// (sqlite-statements.test.ts covers its statements).
import { Client, Pool } from 'pg';
import { Prisma } from '../generated/prisma/sqlite/client';
import { executeRows, queryRows } from '../src/db/client';
import { PgStatements } from '../src/db/pg-statements';
import { TestServer, type Cast } from './support/server';

const onPostgres = process.env.TEST_DATABASE === 'postgresql';
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('through the server', () => {
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
  afterAll(() => server?.stop());

  test('rows are the values Prisma gives, types and all: int8 as bigint, numeric as Decimal, dates, booleans, nulls', async () => {
    const since = new Date(Date.now() - 60_000);
    const query = Prisma.sql`
      SELECT m.*, um."read", um."userId", COUNT(*) OVER () AS "total", AVG(um."userId") OVER () AS "mean",
        m."dateSent" + INTERVAL '1 day' AS "later", CAST(m."dateSent" AS date) AS "day", NULL AS "nothing"
      FROM "Message" m JOIN "UserMessage" um ON um."messageId" = m."id"
      WHERE m."id" = ${messageId} AND m."dateSent" >= ${since} AND um."read" IN (${true}, ${false})
      ORDER BY um."userId"`;
    const [direct, prisma] = await server.services.db.read(async (db) => [
      await queryRows<Record<string, unknown>>(db, query),
      await db.$queryRaw<Record<string, unknown>[]>(query),
    ]);
    expect(direct).toHaveLength(2);
    expect(direct).toEqual(prisma);
    const [first] = direct;
    expect(typeof first.total).toBe('bigint');
    expect(first.mean).toBeInstanceOf(Prisma.Decimal);
    expect(first.dateSent).toBeInstanceOf(Date);
    expect((first.later as Date).getTime() - (first.dateSent as Date).getTime()).toBe(86_400_000);
    expect(typeof first.read).toBe('boolean');
    expect(first.lastEditTime).toBeNull();
  });

  test('transactions begun side by side each run their statements on their own connection', async () => {
    const pid = Prisma.sql`SELECT pg_backend_pid() AS "pid"`;
    const pairs = await Promise.all(
      Array.from({ length: 6 }, () =>
        server.services.db.write(async (tx) => {
          const [direct] = await queryRows<{ pid: number }>(tx, pid);
          const [prisma] = await tx.$queryRaw<{ pid: number }[]>(pid);
          // Prepared by name on the transaction's connection, not run through Prisma.
          const named = await tx.$queryRaw<{ statement: string }[]>(
            Prisma.sql`SELECT "statement" FROM pg_prepared_statements`,
          );
          expect(named.map((r) => r.statement)).toContain(pid.text);
          return [direct.pid, prisma.pid];
        }),
      ),
    );
    for (const [direct, prisma] of pairs) expect(direct).toBe(prisma);
  });

  test("a transaction's queries asked side by side, Prisma's and these, reach its connection one at a time", async () => {
    // Counts the queries sent to a connection while another runs on it (pg
    // queues them, warns of it, and pg 9 refuses it).
    const query = Client.prototype.query;
    const running = new Map<Client, number>();
    let overlapped = 0;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const now = running.get(this) ?? 0;
      if (now > 0) overlapped++;
      running.set(this, now + 1);
      const done = () => running.set(this, (running.get(this) ?? 1) - 1);
      const result = Reflect.apply(query, this, args) as Promise<unknown> | undefined;
      if (result && typeof result.then === 'function') return result.finally(done);
      done();
      return result;
    } as typeof query;
    try {
      const one = Prisma.sql`SELECT 1 AS "one"`;
      const answers = await server.services.db.write((tx) =>
        Promise.all([
          tx.user.count(),
          queryRows<{ one: number }>(tx, one),
          tx.stream.findMany({ select: { id: true } }),
          tx.$queryRaw<{ one: number }[]>(one),
          queryRows<{ one: number }>(tx, one),
          tx.realm.count(),
        ]),
      );
      expect(answers[0]).toBeGreaterThan(0);
      expect(answers[1]).toEqual([{ one: 1 }]);
      expect(answers[3]).toEqual([{ one: 1 }]);
      expect(overlapped).toBe(0);
    } finally {
      Client.prototype.query = query;
    }
  });

  test('inside a transaction they see its writes, and are rolled back with it', async () => {
    class Planned extends Error {}
    const starred = Prisma.sql`SELECT "starred" FROM "UserMessage" WHERE "messageId" = ${messageId} ORDER BY "userId"`;
    const outcome = await server.services.db
      .write(async (tx) => {
        const changed = await executeRows(
          tx,
          Prisma.sql`UPDATE "UserMessage" SET "starred" = ${true} WHERE "messageId" = ${messageId}`,
        );
        expect(changed).toBe(2);
        const seen = await queryRows<{ starred: boolean }>(tx, starred);
        expect(seen.map((r) => r.starred)).toEqual([true, true]);
        throw new Planned();
      })
      .catch((error) => error);
    expect(outcome).toBeInstanceOf(Planned);
    const after = await server.services.db.read((db) =>
      queryRows<{ starred: boolean }>(db, starred),
    );
    expect(after.map((r) => r.starred)).toEqual([false, false]);
  });
});

describeOnPostgres('the statements of each connection', () => {
  let pool: Pool;
  beforeEach(() => {
    // One connection, so that every query meets the same one.
    pool = new Pool({ connectionString: process.env.TEST_POSTGRES_URL, max: 1 });
  });
  afterEach(() => pool.end());

  /** The statements prepared on the pool's connection, by name. */
  async function prepared(): Promise<Record<string, string>> {
    const { rows } = await pool.query<{ name: string; statement: string }>(
      'SELECT name, statement FROM pg_prepared_statements',
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.statement]));
  }
  const sql = (text: string, ...values: unknown[]) => ({ sql: '', text, values });

  test('each text is prepared once, bound afresh each time, and the least recently used is deallocated', async () => {
    const statements = new PgStatements(pool, 2);
    const double = 'SELECT $1::int * 2 AS "n"';
    const square = 'SELECT $1::int * $1::int AS "n"';
    expect(await statements.rows(sql(double, 3))).toEqual([{ n: 6 }]);
    expect(await statements.rows(sql(double, 4))).toEqual([{ n: 8 }]);
    expect(await statements.rows(sql(square, 5))).toEqual([{ n: 25 }]);
    expect(Object.values(await prepared()).sort()).toEqual([double, square].sort());

    await statements.rows(sql(double, 1)); // now the square is the least recently used
    expect(await statements.rows(sql('SELECT $1::text AS "t"', 'x'))).toEqual([{ t: 'x' }]);
    expect(Object.values(await prepared()).sort()).toEqual(
      [double, 'SELECT $1::text AS "t"'].sort(),
    );
    expect(await statements.rows(sql(square, 6))).toEqual([{ n: 36 }]); // prepared again
  });

  test('a statement that fails leaves the connection usable, and a column named __proto__ is a property', async () => {
    const statements = new PgStatements(pool);
    await expect(statements.rows(sql('SELECT 1 / $1::int AS "n"', 0))).rejects.toThrow(
      'division by zero',
    );
    const [row] = await statements.rows<Record<string, unknown>>(
      sql('SELECT 1 AS "__proto__", $1::int AS "two"', 2),
    );
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
    expect(row.two).toBe(2);
  });

  test("a transaction's statements asked side by side run one at a time, in the order asked", async () => {
    const connection = await pool.connect();
    try {
      // Counts the queries sent to the connection while another runs on it.
      let running = 0;
      let overlapped = 0;
      const query = connection.query.bind(connection) as (config: unknown) => Promise<unknown>;
      (connection as unknown as { query: typeof query }).query = (config) => {
        if (running > 0) overlapped++;
        running++;
        return query(config).finally(() => running--);
      };
      const statements = new PgStatements(pool).on(connection);
      const answers = await Promise.all(
        [3, 2, 1].map((n) => statements.rows<{ n: number }>(sql('SELECT $1::int AS "n"', n))),
      );
      expect(answers).toEqual([[{ n: 3 }], [{ n: 2 }], [{ n: 1 }]]);
      expect(overlapped).toBe(0);
      // A failing statement does not stop the ones after it.
      const [failed, after] = await Promise.allSettled([
        statements.rows(sql('SELECT 1 / $1::int AS "n"', 0)),
        statements.rows(sql('SELECT $1::int AS "n"', 7)),
      ]);
      expect(failed.status).toBe('rejected');
      expect(after).toEqual({ status: 'fulfilled', value: [{ n: 7 }] });
    } finally {
      connection.release();
    }
  });
});

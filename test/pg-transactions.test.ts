// On PostgreSQL a write begins and ends its transaction itself, on a
// connection of the pool (src/db/pg-transactions.ts). Raw queries run on that
// connection directly; Prisma's interactive transaction is opened only when
// the body uses the model API, on the same connection and inside the same
// transaction. Skipped on SQLite (sqlite-transactions.test.ts covers its
// transactions).
import { Prisma } from '../generated/prisma/sqlite/client';
import { executeRows, queryRows } from '../src/db/client';
import { TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

const describeOnPostgres = process.env.TEST_DATABASE === 'postgresql' ? describe : describe.skip;

describeOnPostgres('write transactions on PostgreSQL', () => {
  let server: TestServer;
  let cast: Cast;
  /** How many of Prisma's interactive transactions the server began. */
  let begun = 0;

  class Planned extends Error {}

  beforeAll(async () => {
    ({ server, cast } = await TestServer.startWithCast());
    const client = server.services.db.client;
    const begin = client.$transaction.bind(client);
    client.$transaction = ((...args: Parameters<typeof begin>) => {
      begun++;
      return begin(...args);
    }) as typeof begin;
  });
  afterAll(() => server?.stop());

  /** Sets a user's timezone with a raw statement, inside the write `tx` is. */
  const setTimezone = (tx: Prisma.TransactionClient, userId: number, timezone: string) =>
    executeRows(tx, Prisma.sql`UPDATE "User" SET "timezone" = ${timezone} WHERE "id" = ${userId}`);

  const timezoneOf = async (userId: number) =>
    (
      await server.services.db.read((db) =>
        queryRows<{ timezone: string }>(
          db,
          Prisma.sql`SELECT "timezone" FROM "User" WHERE "id" = ${userId}`,
        ),
      )
    )[0].timezone;

  test("a write of raw queries alone commits without a transaction of Prisma's", async () => {
    const before = begun;
    const pids = await server.services.db.write(async (tx) => {
      await setTimezone(tx, cast.member.id, 'Asia/Tokyo');
      return queryRows<{ pid: number; open: boolean }>(
        tx,
        Prisma.sql`SELECT pg_backend_pid() AS "pid", now() <> statement_timestamp() AS "open"`,
      );
    });
    expect(begun).toBe(before);
    // now() is the transaction's start, so the raw queries ran inside one.
    expect(pids[0].open).toBe(true);
    expect(await timezoneOf(cast.member.id)).toBe('Asia/Tokyo');
  });

  test("the model API opens one transaction of Prisma's on the write's connection, committed with the write", async () => {
    const before = begun;
    const pid = Prisma.sql`SELECT pg_backend_pid() AS "pid"`;
    const [direct, prisma] = await server.services.db.write(async (tx) => {
      const [first] = await queryRows<{ pid: number }>(tx, pid);
      await tx.user.update({ where: { id: cast.member2.id }, data: { timezone: 'Europe/Rome' } });
      // The raw query sees what the model query wrote, uncommitted.
      const [seen] = await queryRows<{ timezone: string }>(
        tx,
        Prisma.sql`SELECT "timezone" FROM "User" WHERE "id" = ${cast.member2.id}`,
      );
      expect(seen.timezone).toBe('Europe/Rome');
      const [second] = await tx.$queryRaw<{ pid: number }[]>(pid);
      await tx.user.update({ where: { id: cast.member2.id }, data: { fullName: 'Twice Changed' } });
      return [first.pid, second.pid];
    });
    expect(begun).toBe(before + 1);
    expect(prisma).toBe(direct);
    const user = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: cast.member2.id } }),
    );
    expect([user.timezone, user.fullName]).toEqual(['Europe/Rome', 'Twice Changed']);
  });

  test('a failing write rolls back its raw and model queries alike', async () => {
    const failed = await server.services.db
      .write(async (tx) => {
        await setTimezone(tx, cast.admin.id, 'America/Lima');
        await tx.user.update({ where: { id: cast.admin.id }, data: { fullName: 'Never Kept' } });
        throw new Planned('roll back');
      })
      .catch((error) => error);
    expect(failed).toBeInstanceOf(Planned);
    const admin = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: cast.admin.id } }),
    );
    expect(admin.timezone).not.toBe('America/Lima');
    expect(admin.fullName).not.toBe('Never Kept');
  });

  test('a model query the database refuses fails the write with its code, and leaves nothing', async () => {
    const failed = await server.services.db
      .write(async (tx) => {
        await setTimezone(tx, cast.moderator.id, 'Africa/Lagos');
        // The owner's address, already taken: refused by the unique key.
        await tx.user.update({
          where: { id: cast.moderator.id },
          data: { email: cast.owner.email, emailLower: cast.owner.email.toLowerCase() },
        });
      })
      .catch((error) => error);
    expect(failed).toMatchObject({ code: 'P2002' });
    expect(await timezoneOf(cast.moderator.id)).not.toBe('Africa/Lagos');
  });

  test('writes side by side each run on a connection of their own, and all commit', async () => {
    const pid = Prisma.sql`SELECT pg_backend_pid() AS "pid"`;
    let inside = 0;
    const writes = [cast.owner, cast.member, cast.admin, cast.moderator].map((user, i) =>
      server.services.db.write(async (tx) => {
        const [own] = await queryRows<{ pid: number }>(tx, pid);
        await tx.user.update({ where: { id: user.id }, data: { timezone: `Etc/GMT+${i + 1}` } });
        // Every write holds its transaction open until all are inside theirs.
        inside++;
        await waitFor('all four writes to be inside their transactions', () => inside === 4);
        return own.pid;
      }),
    );
    const pids = await Promise.all(writes);
    expect(new Set(pids).size).toBe(4);
    for (const [i, user] of [cast.owner, cast.member, cast.admin, cast.moderator].entries())
      expect(await timezoneOf(user.id)).toBe(`Etc/GMT+${i + 1}`);
  });
});

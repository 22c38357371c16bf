// On SQLite the adapter has one connection: a query sent while another
// request's interactive transaction is open would run inside it, and vanish
// when that transaction rolls back. The data layer serializes transactions
// with other database work; this proves a write made during a failing
// transaction survives it, and that reads never see uncommitted data.
import Driver from 'better-sqlite3';
import { parseDatabaseUrl } from '../src/db/url';
import { TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

class Planned extends Error {}

/**
 * Waits, inside an open transaction, until each of `others` has finished
 * (PostgreSQL runs them beside it) or is waiting behind it (SQLite's lock).
 */
async function holdUntilMet(sent: Promise<Promise<unknown>[]>): Promise<void> {
  const others = await sent;
  let finished = 0;
  for (const other of others) void other.finally(() => finished++).catch(() => {});
  await waitFor(
    `${others.length} operation(s) to finish or wait behind the open transaction`,
    () => finished + server.services.db.lockWaiters >= others.length,
  );
}

test('a write made while another transaction is open survives that transaction failing', async () => {
  let inside!: () => void;
  const opened = new Promise<void>((resolve) => (inside = resolve));
  let send!: (others: Promise<unknown>[]) => void;
  const sent = new Promise<Promise<unknown>[]>((resolve) => (send = resolve));
  const failing = server.services.db
    .write(async (tx) => {
      await tx.user.update({ where: { id: cast.owner.id }, data: { timezone: 'Pacific/Fiji' } });
      inside();
      await holdUntilMet(sent);
      throw new Planned('roll back');
    })
    .catch((error) => error);

  await opened;
  // Meanwhile, through HTTP, another user changes a setting (a transaction of
  // its own), and a single statement is sent outside any transaction.
  const others = [
    server.call('PATCH', '/settings', { as: cast.member, params: { timezone: 'Asia/Kolkata' } }),
    server.services.db.read((db) =>
      db.user.update({ where: { id: cast.moderator.id }, data: { timezone: 'Europe/Rome' } }),
    ),
  ];
  send(others);
  const [res] = (await Promise.all(others)) as unknown as [{ status: number }];
  expect(res.status).toBe(200);

  expect(await failing).toBeInstanceOf(Planned);
  const [owner, member, moderator] = await server.services.db.read((db) =>
    Promise.all(
      [cast.owner, cast.member, cast.moderator].map((u) =>
        db.user.findUniqueOrThrow({ where: { id: u.id } }),
      ),
    ),
  );
  expect(owner.timezone).toBe('');
  expect(member.timezone).toBe('Asia/Kolkata');
  expect(moderator.timezone).toBe('Europe/Rome');
});

test('a read made while another transaction is open does not see its uncommitted changes', async () => {
  let inside!: () => void;
  const opened = new Promise<void>((resolve) => (inside = resolve));
  let send!: (others: Promise<unknown>[]) => void;
  const sent = new Promise<Promise<unknown>[]>((resolve) => (send = resolve));
  const failing = server.services.db
    .write(async (tx) => {
      await tx.user.update({ where: { id: cast.admin.id }, data: { fullName: 'Never Committed' } });
      inside();
      await holdUntilMet(sent);
      throw new Planned('roll back');
    })
    .catch((error) => error);
  await opened;
  const register = server.call('POST', '/register', {
    as: cast.member,
    params: { fetch_event_types: ['realm_user'], event_types: [] },
  });
  send([register]);
  const res = await register;
  const admin = res.body.realm_users.find((u: { user_id: number }) => u.user_id === cast.admin.id);
  expect(admin.full_name).toBe('Iago Admin');
  expect(await failing).toBeInstanceOf(Planned);
});

// A write's queries through the model API may make Prisma begin a transaction
// of its own (a nested write). Inside a write, that one must be part of the
// write's: committed with it, and rolled back with it.
test('a nested write inside a write commits with it, and rolls back with it', async () => {
  const nested = (step: string) => ({
    where: { id: cast.member2.id },
    data: { fullName: `Nested ${step}`, onboardingSteps: { create: { onboardingStep: step } } },
  });
  const failed = await server.services.db
    .write(async (tx) => {
      await tx.user.update(nested('rolled_back_step'));
      throw new Planned('roll back');
    })
    .catch((error) => error);
  expect(failed).toBeInstanceOf(Planned);
  await server.services.db.write((tx) => tx.user.update(nested('kept_step')));

  const user = await server.services.db.read((db) =>
    db.user.findUniqueOrThrow({
      where: { id: cast.member2.id },
      include: { onboardingSteps: { where: { onboardingStep: { contains: '_step' } } } },
    }),
  );
  expect(user.fullName).toBe('Nested kept_step');
  expect(user.onboardingSteps.map((s) => s.onboardingStep)).toEqual(['kept_step']);
});

// On SQLite a failed statement ends no transaction, and the failed nested one
// is undone alone; PostgreSQL aborts the whole transaction at the first error.
const onSqlite = process.env.TEST_DATABASE === 'postgresql' ? test.skip : test;

onSqlite(
  'a failing nested write inside a write is undone alone, and the write goes on',
  async () => {
    const step = { userId: cast.member2.id, onboardingStep: 'duplicate_step' };
    await server.services.db.write((tx) => tx.onboardingStep.create({ data: step }));
    const name = await server.services.db.write(async (tx) => {
      // The same step again: refused by the unique key, inside its own nested transaction.
      const refused = await tx.user
        .update({
          where: { id: cast.member2.id },
          data: {
            fullName: 'Never Saved',
            onboardingSteps: { create: { onboardingStep: step.onboardingStep } },
          },
        })
        .catch((error: { code?: string }) => error.code);
      expect(refused).toBe('P2002');
      const user = await tx.user.update({
        where: { id: cast.member2.id },
        data: { fullName: 'Saved After' },
      });
      return user.fullName;
    });
    expect(name).toBe('Saved After');
    const user = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: cast.member2.id } }),
    );
    expect(user.fullName).toBe('Saved After');
  },
);

test('a write that runs past its time limit is rolled back and fails', async () => {
  const failed = await server.services.db
    .write(
      async (tx) => {
        const started = performance.now();
        await tx.user.update({ where: { id: cast.member2.id }, data: { timezone: 'Asia/Tokyo' } });
        await waitFor('the write to run past its limit', () => performance.now() - started > 20);
      },
      { timeoutMs: 5 },
    )
    .catch((error) => error);
  expect(failed).toMatchObject({ code: 'P2028' });
  const user = await server.services.db.read((db) =>
    db.user.findUniqueOrThrow({ where: { id: cast.member2.id } }),
  );
  expect(user.timezone).not.toBe('Asia/Tokyo');
});

onSqlite('a write blocked by another process holding the database is a 503 to retry', async () => {
  const target = parseDatabaseUrl(server.services.config.databaseUrl);
  if (target.provider !== 'sqlite') throw new Error('this test runs on SQLite only');
  const other = new Driver(target.file, { timeout: 0 });
  try {
    other.exec('BEGIN IMMEDIATE');
    // The server waits its busy timeout for the lock, then gives up.
    const blocked = await server.call('PATCH', '/settings', {
      as: cast.member,
      params: { timezone: 'Europe/Oslo' },
    });
    expect(blocked.status).toBe(503);
    expect(blocked.body).toMatchObject({ result: 'error', code: 'SERVICE_UNAVAILABLE' });
    other.exec('ROLLBACK');
  } finally {
    other.close();
  }
  const res = await server.call('PATCH', '/settings', {
    as: cast.member,
    params: { timezone: 'Europe/Oslo' },
  });
  expect(res.status).toBe(200);
});

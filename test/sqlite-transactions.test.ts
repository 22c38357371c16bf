// On SQLite the adapter has one connection: a query sent while another
// request's interactive transaction is open would run inside it, and vanish
// when that transaction rolls back. The data layer serializes transactions
// with other database work; this proves a write made during a failing
// transaction survives it, and that reads never see uncommitted data.
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

// Channel folders through HTTP: creating, listing, renaming, archiving and
// reordering them (administrators only), channels put into folders through
// PATCH /streams/{id} and at creation, Zulip's refusals, and the
// channel_folder events applied to the /register state.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

type User = Cast['member'];

function create(name: string, description = '', as: User = cast.admin) {
  return server.call('POST', '/channel_folders/create', { as, params: { name, description } });
}

async function created(name: string, description = ''): Promise<number> {
  const res = await create(name, description);
  expect(res.body).toEqual({ result: 'success', msg: '', channel_folder_id: expect.any(Number) });
  return res.body.channel_folder_id;
}

function update(id: number, params: Record<string, unknown>, as: User = cast.admin) {
  return server.call('PATCH', `/channel_folders/${id}`, { as, params });
}

async function list(params: Record<string, unknown> = {}, as: User = cast.member) {
  const res = await server.call('GET', '/channel_folders', { as, params });
  expect(res.status).toBe(200);
  return res.body.channel_folders;
}

const state = async (as: User) =>
  (await register(server, as, { fetch_event_types: ['channel_folders'], event_types: [] }))
    .channel_folders;

let frontend: number;
let backend: number;

test('an administrator creates folders, which everyone lists and /register gives', async () => {
  const before = Math.floor(Date.now() / 1000);
  frontend = await created('Frontend', 'Channels for the **web** app.');
  backend = await created('Backend');
  const expected = [
    {
      id: frontend,
      name: 'Frontend',
      description: 'Channels for the **web** app.',
      rendered_description: '<p>Channels for the <strong>web</strong> app.</p>',
      creator_id: cast.admin.id,
      date_created: expect.any(Number),
      is_archived: false,
      order: frontend,
    },
    {
      id: backend,
      name: 'Backend',
      description: '',
      rendered_description: '',
      creator_id: cast.admin.id,
      date_created: expect.any(Number),
      is_archived: false,
      order: backend,
    },
  ];
  const listed = await list({}, cast.guest);
  expect(listed).toEqual(expected);
  expect(listed[0].date_created).toBeGreaterThanOrEqual(before);
  expect(await state(cast.guest)).toEqual(expected);
});

test.each([
  ['', "Channel folder name can't be empty."],
  ['   ', "Channel folder name can't be empty."],
  ['ab\u0007c', 'Invalid character in channel folder name, at position 3.'],
  ['FRONTEND', "Channel folder 'FRONTEND' already exists"],
])('the name %j is refused: %s', async (name, msg) => {
  expectError(await create(name), 400, 'BAD_REQUEST', msg);
});

test('lengths beyond the limits are refused', async () => {
  expectError(
    await create('x'.repeat(61)),
    400,
    'BAD_REQUEST',
    'name is too long (limit: 60 characters)',
  );
  expectError(
    await create('Long', 'x'.repeat(1025)),
    400,
    'BAD_REQUEST',
    'description is too long (limit: 1024 characters)',
  );
});

test('only administrators create, change and reorder folders', async () => {
  for (const as of [cast.moderator, cast.member, cast.guest]) {
    const refused = [
      await create('Mine', '', as),
      await update(frontend, { name: 'Mine' }, as),
      await server.call('PATCH', '/channel_folders', {
        as,
        params: { order: [backend, frontend] },
      }),
    ];
    for (const res of refused)
      expectError(res, 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
  expect((await create('Owned', '', cast.owner)).status).toBe(200);
});

test('updates: unknown folders, names in use, and no-op changes', async () => {
  expectError(await update(9999, { name: 'X' }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
  expectError(
    await update(frontend, { name: 'backend' }),
    400,
    'BAD_REQUEST',
    "Channel folder 'backend' already exists",
  );
  // The folder's own name counts, as in Zulip: a change of case alone is refused.
  expectError(
    await update(frontend, { name: 'frontend' }),
    400,
    'BAD_REQUEST',
    "Channel folder 'frontend' already exists",
  );
  expect((await update(frontend, { name: 'Frontend', is_archived: false })).body).toEqual({
    result: 'success',
    msg: '',
  });
});

test('a folder holding a channel cannot be archived until the channel leaves', async () => {
  await subscribe(server, cast.admin, ['web']);
  const web = await streamId(server, cast.admin, 'web');
  const move = (folderId: number | null) =>
    server.call('PATCH', `/streams/${web}`, { as: cast.admin, params: { folder_id: folderId } });
  expectError(await move(9999), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
  expect((await move(frontend)).status).toBe(200);
  const channel = (await server.call('GET', `/streams/${web}`, { as: cast.admin })).body.stream;
  expect(channel.folder_id).toBe(frontend);
  expectError(
    await update(frontend, { is_archived: true }),
    400,
    'BAD_REQUEST',
    'You need to remove all the channels from this folder to archive it.',
  );
  expect((await move(null)).status).toBe(200);
  expect((await update(frontend, { is_archived: true })).status).toBe(200);
  expect((await list()).map((f: { id: number }) => f.id)).not.toContain(frontend);
  expect(
    (await list({ include_archived: true })).find((f: { id: number }) => f.id === frontend),
  ).toMatchObject({ is_archived: true });
  expect((await update(frontend, { is_archived: false })).status).toBe(200);
});

test('channels are created in a folder that exists', async () => {
  const res = await server.call('POST', '/users/me/subscriptions', {
    as: cast.admin,
    params: { subscriptions: [{ name: 'nowhere' }], folder_id: 9999 },
  });
  expectError(res, 400, 'BAD_REQUEST', 'Invalid channel folder ID');
  await subscribe(server, cast.admin, ['servers'], { folder_id: backend });
  const id = await streamId(server, cast.admin, 'servers');
  const channel = (await server.call('GET', `/streams/${id}`, { as: cast.admin })).body.stream;
  expect(channel.folder_id).toBe(backend);
});

test('reordering names every folder, archived ones too', async () => {
  const all = (await list({ include_archived: true })).map((f: { id: number }) => f.id);
  const reorder = (order: number[]) =>
    server.call('PATCH', '/channel_folders', { as: cast.admin, params: { order } });
  expectError(await reorder(all.slice(1)), 400, 'BAD_REQUEST', 'Invalid order mapping.');
  const reversed = [...all].reverse();
  expect((await reorder(reversed)).body).toEqual({ result: 'success', msg: '' });
  const listed = await list({ include_archived: true });
  expect(listed.map((f: { id: number }) => f.id)).toEqual(reversed);
  expect(listed.map((f: { order: number }) => f.order)).toEqual(reversed.map((_, i) => i));
});

test('events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.member2;
  const initial = await register(server, user, {
    event_types: ['channel_folder', 'stream'],
    fetch_event_types: ['channel_folders'],
  });
  const id = await created('Design', 'Mockups');
  expect((await update(id, { name: 'Design system', description: 'Tokens' })).status).toBe(200);
  expect((await update(id, { is_archived: true })).status).toBe(200);
  const order = (await list({ include_archived: true })).map((f: { id: number }) => f.id);
  order.unshift(order.pop());
  expect(
    (await server.call('PATCH', '/channel_folders', { as: cast.admin, params: { order } })).status,
  ).toBe(200);
  const events = await eventsOf(server, user, initial.queue_id);
  expect(withoutIds(events)).toEqual([
    {
      type: 'channel_folder',
      op: 'add',
      channel_folder: {
        id,
        name: 'Design',
        description: 'Mockups',
        rendered_description: '<p>Mockups</p>',
        creator_id: cast.admin.id,
        date_created: expect.any(Number),
        is_archived: false,
        order: id,
      },
    },
    {
      type: 'channel_folder',
      op: 'update',
      channel_folder_id: id,
      data: { name: 'Design system' },
    },
    {
      type: 'channel_folder',
      op: 'update',
      channel_folder_id: id,
      data: { description: 'Tokens', rendered_description: '<p>Tokens</p>' },
    },
    {
      type: 'channel_folder',
      op: 'update',
      channel_folder_id: id,
      data: { is_archived: true },
    },
    { type: 'channel_folder', op: 'reorder', order },
  ]);
  const applied = applyEvents(initial, events).channel_folders;
  expect(applied).toEqual(await state(user));
});

test('moving a channel into a folder is a stream update event', async () => {
  await subscribe(server, cast.admin, ['ops']);
  await subscribe(server, cast.member, ['ops']);
  const ops = await streamId(server, cast.admin, 'ops');
  const initial = await register(server, cast.member, {
    event_types: ['stream'],
    fetch_event_types: ['subscription'],
  });
  await server.ok('PATCH', `/streams/${ops}`, { as: cast.admin, params: { folder_id: backend } });
  const events = await eventsOf(server, cast.member, initial.queue_id);
  expect(withoutIds(events)).toEqual([
    {
      type: 'stream',
      op: 'update',
      stream_id: ops,
      name: 'ops',
      property: 'folder_id',
      value: backend,
    },
  ]);
  const applied = applyEvents(initial, events).subscriptions;
  const fresh = await register(server, cast.member, {
    fetch_event_types: ['subscription'],
    event_types: [],
  });
  expect(applied).toEqual(fresh.subscriptions);
});

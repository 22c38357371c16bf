// Saved snippets through HTTP: saving, listing, editing and deleting them,
// each user seeing only their own, Zulip's refusals, and the saved_snippets
// events applied to the /register state.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

type User = Cast['member'];

function create(title: string, content: string, as: User = cast.member) {
  return server.call('POST', '/saved_snippets', { as, params: { title, content } });
}

async function created(title: string, content: string, as: User = cast.member): Promise<number> {
  const res = await create(title, content, as);
  expect(res.body).toEqual({ result: 'success', msg: '', saved_snippet_id: expect.any(Number) });
  return res.body.saved_snippet_id;
}

async function list(as: User = cast.member) {
  const res = await server.call('GET', '/saved_snippets', { as });
  expect(res.status).toBe(200);
  return res.body.saved_snippets;
}

test('a user saves snippets, trimmed, and lists them oldest first', async () => {
  const before = Math.floor(Date.now() / 1000);
  const first = await created('  Greeting ', '\n Hello **there**! \n');
  const second = await created('Sign-off', 'Cheers');
  const listed = await list();
  expect(listed).toEqual([
    { id: first, title: 'Greeting', content: 'Hello **there**!', date_created: expect.any(Number) },
    { id: second, title: 'Sign-off', content: 'Cheers', date_created: expect.any(Number) },
  ]);
  expect(listed[0].date_created).toBeGreaterThanOrEqual(before);
  const state = await register(server, cast.member, {
    fetch_event_types: ['saved_snippets'],
    event_types: [],
  });
  expect(state.saved_snippets).toEqual(listed);
  // Nobody else sees them.
  expect(await list(cast.member2)).toEqual([]);
});

test.each([
  ['', 'text', 'title is too short.'],
  ['   ', 'text', 'title is too short.'],
  ['Title', ' \n ', 'content is too short.'],
  ['x'.repeat(61), 'text', 'title is too long (limit: 60 characters)'],
  ['Title', 'x'.repeat(10001), 'content is too long (limit: 10000 characters)'],
])('title %j with content %j is refused: %s', async (title, content, msg) => {
  expectError(await create(title, content), 400, 'BAD_REQUEST', msg);
});

test('title and content are required', async () => {
  const res = await server.call('POST', '/saved_snippets', {
    as: cast.member,
    params: { title: 'Only a title' },
  });
  expectError(res, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument", {
    var_name: 'content',
  });
});

test('editing changes the title, the content, or both', async () => {
  const id = await created('Draft', 'Some text');
  const edit = (params: Record<string, unknown>, as: User = cast.member) =>
    server.call('PATCH', `/saved_snippets/${id}`, { as, params });
  expect((await edit({ title: ' Final ' })).body).toEqual({ result: 'success', msg: '' });
  expect((await edit({ content: 'Better text' })).status).toBe(200);
  expect((await list()).find((s: { id: number }) => s.id === id)).toMatchObject({
    title: 'Final',
    content: 'Better text',
  });
  expectError(await edit({ title: '  ' }), 400, 'BAD_REQUEST', 'title is too short.');
  // Another user's snippet, or none, does not exist for them.
  expectError(
    await edit({ title: 'Mine' }, cast.member2),
    404,
    'BAD_REQUEST',
    'Saved snippet does not exist.',
  );
  expectError(
    await server.call('PATCH', '/saved_snippets/99999', {
      as: cast.member,
      params: { title: 'X' },
    }),
    404,
    'BAD_REQUEST',
    'Saved snippet does not exist.',
  );
  // Nothing to change: success, as in Zulip, even for an unknown ID.
  expect(
    (await server.call('PATCH', '/saved_snippets/99999', { as: cast.member, params: {} })).body,
  ).toEqual({ result: 'success', msg: '' });
});

test('deleting removes the snippet, and only the owner may', async () => {
  const id = await created('Temporary', 'Soon gone');
  const remove = (as: User) => server.call('DELETE', `/saved_snippets/${id}`, { as });
  expectError(await remove(cast.member2), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
  expect((await remove(cast.member)).body).toEqual({ result: 'success', msg: '' });
  expect((await list()).map((s: { id: number }) => s.id)).not.toContain(id);
  expectError(await remove(cast.member), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
});

test('events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.moderator;
  const initial = await register(server, user, {
    event_types: ['saved_snippets'],
    fetch_event_types: ['saved_snippets'],
  });
  expect(initial.saved_snippets).toEqual([]);
  const a = await created('A', 'First', user);
  const b = await created('B', 'Second', user);
  await server.ok('PATCH', `/saved_snippets/${a}`, { as: user, params: { content: 'Changed' } });
  await server.ok('DELETE', `/saved_snippets/${b}`, { as: user });
  const events = await eventsOf(server, user, initial.queue_id);
  const snippet = (id: number, title: string, content: string) => ({
    id,
    title,
    content,
    date_created: expect.any(Number),
  });
  expect(withoutIds(events)).toEqual([
    { type: 'saved_snippets', op: 'add', saved_snippet: snippet(a, 'A', 'First') },
    { type: 'saved_snippets', op: 'add', saved_snippet: snippet(b, 'B', 'Second') },
    { type: 'saved_snippets', op: 'update', saved_snippet: snippet(a, 'A', 'Changed') },
    { type: 'saved_snippets', op: 'remove', saved_snippet_id: b },
  ]);
  const applied = applyEvents(initial, events).saved_snippets;
  const fresh = await register(server, user, {
    fetch_event_types: ['saved_snippets'],
    event_types: [],
  });
  expect(applied).toEqual(fresh.saved_snippets);
});

// Navigation views: add, list, update (with fragments holding `/`, sent raw
// or as %2F), remove, their errors (404 NOT_FOUND for a missing view), and
// their events applied to the initial state.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

async function views(user: Cast['member']) {
  const res = await server.call('GET', '/navigation_views', { as: user });
  expect(res.status).toBe(200);
  return res.body.navigation_views;
}

test('a custom view is added with a name and listed', async () => {
  const res = await server.call('POST', '/navigation_views', {
    as: cast.member,
    params: { fragment: ' narrow/is/attachment ', is_pinned: true, name: ' Files ' },
  });
  expect(res.body).toEqual({ result: 'success', msg: '' });
  expect(await views(cast.member)).toEqual([
    { fragment: 'narrow/is/attachment', is_pinned: true, name: 'Files' },
  ]);
  expect(await views(cast.member2)).toEqual([]);
});

test.each([
  [
    { fragment: 'inbox', is_pinned: false, name: 'My inbox' },
    'Built-in views cannot have a custom name.',
  ],
  [{ fragment: 'narrow/channel/1-x', is_pinned: true }, 'Custom views must have a name.'],
  [
    { fragment: 'narrow/is/attachment', is_pinned: false, name: 'Other' },
    'Navigation view already exists.',
  ],
  [
    { fragment: 'narrow/is/dm', is_pinned: false, name: 'Files' },
    'Navigation view already exists.',
  ],
  [{ fragment: 'narrow/is/dm', is_pinned: false, name: '   ' }, 'name cannot be blank.'],
])('adding %j fails with "%s"', async (params, msg) => {
  const res = await server.call('POST', '/navigation_views', { as: cast.member, params });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
});

test('a built-in view is stored without a name', async () => {
  await server.ok('POST', '/navigation_views', {
    as: cast.member,
    params: { fragment: 'recent', is_pinned: false },
  });
  expect(await views(cast.member)).toContainEqual({
    fragment: 'recent',
    is_pinned: false,
    name: null,
  });
});

test('PATCH finds a fragment holding "/" whether sent raw or as %2F, with parameters in the body or the query string', async () => {
  const raw = await server.call('PATCH', '/navigation_views/narrow/is/attachment', {
    as: cast.member,
    params: { is_pinned: false },
  });
  expect(raw.body).toEqual({ result: 'success', msg: '' });
  expect(
    (await views(cast.member)).find(
      (v: { fragment: string }) => v.fragment === 'narrow/is/attachment',
    ).is_pinned,
  ).toBe(false);

  const encoded = await server.call('PATCH', '/navigation_views/narrow%2Fis%2Fattachment', {
    as: cast.member,
    params: { name: 'Uploads' },
    encoding: 'query',
  });
  expect(encoded.body).toEqual({ result: 'success', msg: '' });
  expect(
    (await views(cast.member)).find(
      (v: { fragment: string }) => v.fragment === 'narrow/is/attachment',
    ).name,
  ).toBe('Uploads');
});

test('PATCH refuses a name for a built-in view, and a name another view has', async () => {
  const builtIn = await server.call('PATCH', '/navigation_views/recent', {
    as: cast.member,
    params: { name: 'Recent stuff' },
  });
  expect(builtIn.status).toBe(400);
  expect(builtIn.body).toEqual({
    result: 'error',
    msg: 'Built-in views cannot have a custom name.',
    code: 'BAD_REQUEST',
  });
  await server.ok('POST', '/navigation_views', {
    as: cast.member,
    params: { fragment: 'narrow/is/dm', is_pinned: true, name: 'DMs' },
  });
  const taken = await server.call('PATCH', '/navigation_views/narrow/is/dm', {
    as: cast.member,
    params: { name: 'Uploads' },
  });
  expect(taken.body).toEqual({
    result: 'error',
    msg: 'Navigation view already exists.',
    code: 'BAD_REQUEST',
  });
});

test("a missing view answers 404 NOT_FOUND, also when it is another user's", async () => {
  for (const [method, path, user] of [
    ['PATCH', '/navigation_views/narrow/is/nothing', cast.member],
    ['DELETE', '/navigation_views/narrow/is/nothing', cast.member],
    ['PATCH', '/navigation_views/narrow/is/attachment', cast.member2],
    ['DELETE', '/navigation_views/narrow%2Fis%2Fattachment', cast.member2],
  ] as const) {
    const res = await server.call(method, path, {
      as: user,
      params: method === 'PATCH' ? { is_pinned: true } : {},
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Navigation view does not exist.',
      code: 'NOT_FOUND',
    });
  }
});

test('DELETE removes the view', async () => {
  const res = await server.call('DELETE', '/navigation_views/narrow/is/dm', { as: cast.member });
  expect(res.body).toEqual({ result: 'success', msg: '' });
  expect((await views(cast.member)).map((v: { fragment: string }) => v.fragment)).not.toContain(
    'narrow/is/dm',
  );
});

test('events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.moderator;
  const state = (
    await server.ok('POST', '/register', {
      as: user,
      params: { event_types: ['navigation_view'], fetch_event_types: ['navigation_views'] },
    })
  ).body;
  expect(state.navigation_views).toEqual([]);
  await server.ok('POST', '/navigation_views', {
    as: user,
    params: { fragment: 'narrow/is/starred', is_pinned: true },
  });
  await server.ok('POST', '/navigation_views', {
    as: user,
    params: { fragment: 'narrow/channel/9-ops', is_pinned: true, name: 'Ops' },
  });
  await server.ok('PATCH', '/navigation_views/narrow/channel/9-ops', {
    as: user,
    params: { is_pinned: false, name: 'Operations' },
  });
  await server.ok('DELETE', '/navigation_views/narrow/is/starred', { as: user });
  const { body } = await server.call('GET', '/events', {
    as: user,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  expect(withoutIds(body.events)).toEqual([
    {
      type: 'navigation_view',
      op: 'add',
      navigation_view: { fragment: 'narrow/is/starred', is_pinned: true, name: null },
    },
    {
      type: 'navigation_view',
      op: 'add',
      navigation_view: { fragment: 'narrow/channel/9-ops', is_pinned: true, name: 'Ops' },
    },
    {
      type: 'navigation_view',
      op: 'update',
      fragment: 'narrow/channel/9-ops',
      data: { is_pinned: false, name: 'Operations' },
    },
    { type: 'navigation_view', op: 'remove', fragment: 'narrow/is/starred' },
  ]);
  const applied = applyEvents(state, body.events).navigation_views;
  const fresh = (
    await server.ok('POST', '/register', {
      as: user,
      params: { fetch_event_types: ['navigation_views'], event_types: [] },
    })
  ).body;
  expect(applied).toEqual(fresh.navigation_views);
});

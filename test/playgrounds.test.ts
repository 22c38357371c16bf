// Code playgrounds through HTTP: adding and removing them, Zulip's refusals
// (with `errors` by field), and the realm_playgrounds events applied to the
// /register state.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { expectRefusal } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

type Playground = { id: number; name: string; pygments_language: string; url_template: string };

async function listed(as: User = cast.member): Promise<Playground[]> {
  const res = await server.call('POST', '/register', {
    as,
    params: { fetch_event_types: ['realm_playgrounds'] },
  });
  expect(res.status).toBe(200);
  return res.body.realm_playgrounds;
}

function add(name: string, language: string, urlTemplate: string, as: User = cast.admin) {
  return server.call('POST', '/realm/playgrounds', {
    as,
    params: { name, pygments_language: language, url_template: urlTemplate },
  });
}

async function added(name: string, language: string, urlTemplate: string): Promise<number> {
  const res = await add(name, language, urlTemplate);
  expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
  return res.body.id;
}

async function removeAll(): Promise<void> {
  for (const p of await listed())
    await server.call('DELETE', `/realm/playgrounds/${p.id}`, { as: cast.admin });
}

describe('adding', () => {
  afterAll(removeAll);

  test('an administrator adds playgrounds, trimmed, which everyone sees in /register', async () => {
    expect(await listed()).toEqual([]);
    const python = await added(
      ' Python playground ',
      ' python ',
      ' https://py.example.com/?c={code} ',
    );
    const cpp = await added('C++ online', 'c++', 'https://cpp.example.com/{#code}');
    expect(await listed(cast.guest)).toEqual([
      {
        id: python,
        name: 'Python playground',
        pygments_language: 'python',
        url_template: 'https://py.example.com/?c={code}',
      },
      {
        id: cpp,
        name: 'C++ online',
        pygments_language: 'c++',
        url_template: 'https://cpp.example.com/{#code}',
      },
    ]);
    // The same name for another language is no clash.
    await added('C++ online', 'c', 'https://c.example.com/{code}');
  });

  test.each([
    [
      '',
      'python',
      'https://x.com/{code}',
      'This field cannot be blank.',
      { name: ['This field cannot be blank.'] },
    ],
    [
      'X',
      '  ',
      'https://x.com/{code}',
      'This field cannot be blank.',
      { pygments_language: ['This field cannot be blank.'] },
    ],
    [
      'X',
      'python',
      'https://x.com/{code',
      'Invalid URL template.',
      { url_template: ['Invalid URL template.'] },
    ],
    [
      'X',
      'python',
      'https://x.com/',
      'Missing the required variable "code" in the URL template',
      { __all__: ['Missing the required variable "code" in the URL template'] },
    ],
    [
      'X',
      'python',
      'https://x.com/{code}/{lang}',
      '"code" should be the only variable present in the URL template',
      { __all__: ['"code" should be the only variable present in the URL template'] },
    ],
    [
      'Python playground',
      'python',
      'https://other.example.com/{code}',
      'Realm playground with this Realm, Pygments language and Name already exists.',
      { __all__: ['Realm playground with this Realm, Pygments language and Name already exists.'] },
    ],
    [
      '',
      'python',
      'https://x.com/',
      'This field cannot be blank.',
      {
        name: ['This field cannot be blank.'],
        __all__: ['Missing the required variable "code" in the URL template'],
      },
    ],
  ])('%j %j %j is refused: %s', async (name, language, template, msg, errors) => {
    expectRefusal(
      await add(name, language, template),
      msg,
      'BAD_REQUEST',
      errors ? { errors } : {},
    );
  });

  test('the language parameter is checked before anything else', async () => {
    expectRefusal(await add('', 'py$thon', ''), 'Invalid characters in pygments language');
    expectRefusal(
      await add('X', 'a'.repeat(41), 'https://x.com/{code}'),
      'pygments_language is too long (limit: 40 characters)',
    );
    await added('Forty', 'a'.repeat(40), 'https://x.com/{code}');
  });

  test('only administrators may add or remove', async () => {
    const [first] = await listed();
    for (const as of [cast.moderator, cast.member, cast.guest]) {
      for (const res of [
        await add('Mine', 'python', 'https://x.com/{code}', as),
        await server.call('DELETE', `/realm/playgrounds/${first.id}`, { as }),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          result: 'error',
          msg: 'Must be an organization administrator',
          code: 'UNAUTHORIZED_PRINCIPAL',
        });
      }
    }
    expect((await listed())[0]).toEqual(first);
  });

  test('missing parameters are named', async () => {
    const res = await server.call('POST', '/realm/playgrounds', {
      as: cast.admin,
      params: { name: 'x', pygments_language: 'python' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'url_template' });
  });
});

describe('removing', () => {
  test('a playground of another organization, or none, is invalid', async () => {
    const other = await server.createRealm('Elsewhere', 'elsewhere');
    const theirs = await server.call('POST', '/realm/playgrounds', {
      as: other.owner,
      params: { name: 'Theirs', pygments_language: 'python', url_template: 'https://t.com/{code}' },
    });
    expect(theirs.status).toBe(200);
    for (const id of [theirs.body.id, 999999])
      expectRefusal(
        await server.call('DELETE', `/realm/playgrounds/${id}`, { as: cast.admin }),
        'Invalid playground',
      );
    expect((await listed(other.owner)).map((p) => p.id)).toEqual([theirs.body.id]);
  });
});

describe('events', () => {
  afterAll(removeAll);

  test('every change reaches everyone, and applied to /register gives a fresh fetch', async () => {
    const register = (as: User) =>
      server.call('POST', '/register', {
        as,
        params: { event_types: ['realm_playgrounds'], fetch_event_types: ['realm_playgrounds'] },
      });
    const state = (await register(cast.member)).body;
    const guestQueue = (await register(cast.guest)).body.queue_id;
    const a = await added('A', 'python', 'https://a.example.com/{code}');
    const b = await added('B', 'rust', 'https://b.example.com/{code}');
    const gone = await server.call('DELETE', `/realm/playgrounds/${a}`, { as: cast.admin });
    expect(gone.body).toEqual({ result: 'success', msg: '' });
    const { body } = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    const bb = {
      id: b,
      name: 'B',
      pygments_language: 'rust',
      url_template: 'https://b.example.com/{code}',
    };
    expect(body.events).toHaveLength(3);
    expect(withoutIds(body.events)[1]).toEqual({
      type: 'realm_playgrounds',
      realm_playgrounds: [
        {
          id: a,
          name: 'A',
          pygments_language: 'python',
          url_template: 'https://a.example.com/{code}',
        },
        bb,
      ],
    });
    expect(withoutIds(body.events)[2]).toEqual({
      type: 'realm_playgrounds',
      realm_playgrounds: [bb],
    });
    const fresh = (await register(cast.member)).body;
    expect(applyEvents(state, body.events).realm_playgrounds).toEqual(fresh.realm_playgrounds);
    const guest = await server.call('GET', '/events', {
      as: cast.guest,
      params: { queue_id: guestQueue, last_event_id: -1, dont_block: true },
    });
    expect(guest.body.events).toHaveLength(3);
  });
});

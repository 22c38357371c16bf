// Email domains of an organization through HTTP: listing, adding, changing
// and removing them, Zulip's refusals, and the realm_domains events applied
// to the /register state.
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

type Domain = { domain: string; allow_subdomains: boolean };

async function list(as: User = cast.member): Promise<Domain[]> {
  const res = await server.call('GET', '/realm/domains', { as });
  expect(res.status).toBe(200);
  return res.body.domains;
}

function add(domain: string, allowSubdomains = false, as: User = cast.owner) {
  return server.call('POST', '/realm/domains', {
    as,
    params: { domain, allow_subdomains: allowSubdomains },
  });
}

async function removeAll(): Promise<void> {
  for (const d of await list())
    await server.call('DELETE', `/realm/domains/${d.domain}`, { as: cast.owner });
}

describe('adding and listing', () => {
  afterAll(removeAll);

  test('an owner adds domains, trimmed and lower-cased, which everyone lists', async () => {
    expect(await list()).toEqual([]);
    const first = await add(' Example.COM ');
    expect(first.body).toEqual({
      result: 'success',
      msg: '',
      new_domain: [expect.any(Number), 'example.com'],
    });
    const second = await server.call('POST', '/realm/domains', {
      as: cast.owner,
      params: { domain: 'lear.example.org', allow_subdomains: 'true' },
      encoding: 'form',
    });
    expect(second.status).toBe(200);
    const expected = [
      { domain: 'example.com', allow_subdomains: false },
      { domain: 'lear.example.org', allow_subdomains: true },
    ];
    expect(await list(cast.guest)).toEqual(expected);
    const state = await server.call('POST', '/register', {
      as: cast.guest,
      params: { fetch_event_types: ['realm_domains'] },
    });
    expect(state.body.realm_domains).toEqual(expected);
  });

  test.each([
    ['', "Domain can't be empty."],
    ['localhost', 'Domain must have at least one dot (.)'],
    [`${'a'.repeat(250)}.example`, 'Domain is too long'],
    ['.example.com', 'Domain cannot start or end with a dot (.)'],
    ['example.com.', 'Domain cannot start or end with a dot (.)'],
    ['example..com', "Consecutive '.' are not allowed."],
    ['-example.com', "Subdomains cannot start or end with a '-'."],
    ['example-.com', "Subdomains cannot start or end with a '-'."],
    ['ex_ample.com', "Domain can only have letters, numbers, '.' and '-'s."],
  ])('%j is refused: %s', async (domain, problem) => {
    expectRefusal(await add(domain), `Invalid domain: ${problem}`);
  });

  test('a domain the organization has is refused, whatever its case', async () => {
    expectRefusal(
      await add('EXAMPLE.com', true),
      'The domain example.com is already a part of your organization.',
    );
    // Another organization may have it.
    const other = await server.createRealm('Elsewhere', 'elsewhere');
    expect((await add('example.com', false, other.owner)).status).toBe(200);
    expect(await list(other.owner)).toEqual([{ domain: 'example.com', allow_subdomains: false }]);
  });

  test('only owners may add, change or remove', async () => {
    for (const as of [cast.admin, cast.moderator, cast.member, cast.guest]) {
      for (const [method, path, params] of [
        ['POST', '/realm/domains', { domain: 'x.example.com', allow_subdomains: false }],
        ['PATCH', '/realm/domains/example.com', { allow_subdomains: true }],
        ['DELETE', '/realm/domains/example.com', {}],
      ] as const) {
        const res = await server.call(method, path, { as, params });
        expectRefusal(res, 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
      }
    }
    expect((await list()).length).toBe(2);
  });

  test('allow_subdomains is required', async () => {
    const res = await server.call('POST', '/realm/domains', {
      as: cast.owner,
      params: { domain: 'x.example.com' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'allow_subdomains',
    });
  });
});

describe('changing and removing', () => {
  beforeAll(async () => {
    await add('example.com');
  });
  afterAll(removeAll);

  test('PATCH changes allow_subdomains; unknown domains are refused', async () => {
    const res = await server.call('PATCH', '/realm/domains/example.com', {
      as: cast.owner,
      params: { allow_subdomains: true },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await list()).toEqual([{ domain: 'example.com', allow_subdomains: true }]);
    expectRefusal(
      await server.call('PATCH', '/realm/domains/unknown.example.com', {
        as: cast.owner,
        params: { allow_subdomains: true },
      }),
      'No entry found for domain unknown.example.com.',
    );
    expectRefusal(
      await server.call('DELETE', '/realm/domains/unknown.example.com', { as: cast.owner }),
      'No entry found for domain unknown.example.com.',
    );
  });

  test('DELETE removes the domain', async () => {
    const res = await server.call('DELETE', '/realm/domains/example.com', { as: cast.owner });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await list()).toEqual([]);
  });
});

describe('events', () => {
  afterAll(removeAll);

  test('every change reaches everyone, and applied to /register gives a fresh fetch', async () => {
    const register = (as: User) =>
      server.call('POST', '/register', {
        as,
        params: { event_types: ['realm_domains'], fetch_event_types: ['realm_domains'] },
      });
    const state = (await register(cast.member)).body;
    const guestQueue = (await register(cast.guest)).body.queue_id;
    await add('a.example.com');
    await add('b.example.com', true);
    await server.ok('PATCH', '/realm/domains/a.example.com', {
      as: cast.owner,
      params: { allow_subdomains: true },
    });
    await server.ok('DELETE', '/realm/domains/b.example.com', { as: cast.owner });
    const { body } = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(withoutIds(body.events)).toEqual([
      {
        type: 'realm_domains',
        op: 'add',
        realm_domain: { domain: 'a.example.com', allow_subdomains: false },
      },
      {
        type: 'realm_domains',
        op: 'add',
        realm_domain: { domain: 'b.example.com', allow_subdomains: true },
      },
      {
        type: 'realm_domains',
        op: 'change',
        realm_domain: { domain: 'a.example.com', allow_subdomains: true },
      },
      { type: 'realm_domains', op: 'remove', domain: 'b.example.com' },
    ]);
    const fresh = (await register(cast.member)).body;
    expect(applyEvents(state, body.events).realm_domains).toEqual(fresh.realm_domains);
    const guest = await server.call('GET', '/events', {
      as: cast.guest,
      params: { queue_id: guestQueue, last_event_id: -1, dont_block: true },
    });
    expect(guest.body.events).toHaveLength(4);
  });
});

// Linkifiers through HTTP: listing, adding, changing, removing and reordering
// them, Zulip's refusals (with `errors` by field), the realm_linkifiers events
// applied to the /register state, and messages rendered with them.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { expectRefusal, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

type Linkifier = { pattern: string; url_template: string; id: number };

async function list(as: User = cast.member): Promise<Linkifier[]> {
  const res = await server.call('GET', '/realm/linkifiers', { as });
  expect(res.status).toBe(200);
  return res.body.linkifiers;
}

function add(pattern: string, urlTemplate: string, as: User = cast.admin) {
  return server.call('POST', '/realm/filters', {
    as,
    params: { pattern, url_template: urlTemplate },
  });
}

async function added(pattern: string, urlTemplate: string): Promise<number> {
  const res = await add(pattern, urlTemplate);
  expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
  return res.body.id;
}

async function removeAll(): Promise<void> {
  for (const l of await list())
    await server.call('DELETE', `/realm/filters/${l.id}`, { as: cast.admin });
}

describe('adding and listing', () => {
  afterAll(removeAll);

  test('an administrator adds linkifiers, trimmed, which everyone lists in order', async () => {
    expect(await list()).toEqual([]);
    const first = await added(' #(?P<id>[0-9]+) ', ' https://github.com/zulip/zulip/issues/{id} ');
    const second = await added('RFC (?P<num>[0-9]+)', 'https://www.rfc-editor.org/rfc/rfc{num}');
    expect(second).toBeGreaterThan(first);
    const expected = [
      {
        pattern: '#(?P<id>[0-9]+)',
        url_template: 'https://github.com/zulip/zulip/issues/{id}',
        id: first,
      },
      {
        pattern: 'RFC (?P<num>[0-9]+)',
        url_template: 'https://www.rfc-editor.org/rfc/rfc{num}',
        id: second,
      },
    ];
    expect(await list(cast.guest)).toEqual(expected);
    const state = await server.call('POST', '/register', {
      as: cast.guest,
      params: {
        fetch_event_types: ['realm_linkifiers', 'realm_filters'],
        client_capabilities: { linkifier_url_template: true },
      },
    });
    expect(state.body.realm_linkifiers).toEqual(expected);
    expect(state.body.realm_filters).toEqual([]);
    // Clients that cannot read URL templates are given none.
    const legacy = await server.call('POST', '/register', {
      as: cast.guest,
      params: { fetch_event_types: ['realm_linkifiers'] },
    });
    expect(legacy.body.realm_linkifiers).toEqual([]);
  });

  test.each([
    // Field errors come first, then the pattern, then the groups, then uniqueness.
    [
      '',
      'https://example.com/{id}',
      'This field cannot be blank.',
      {
        pattern: ['This field cannot be blank.'],
        __all__: ["Group 'id' in URL template is not present in linkifier pattern."],
      },
    ],
    [
      'ZUL-(?P<id>\\d+)',
      '  ',
      'This field cannot be blank.',
      {
        url_template: ['This field cannot be blank.'],
      },
    ],
    [
      '(foo',
      'https://example.com/{id}',
      'Bad regular expression: missing ): (foo',
      {
        __all__: ['Bad regular expression: missing ): (foo'],
      },
    ],
    [
      'ZUL-(?P<id>\\d????)',
      'https://example.com/{id}',
      'Bad regular expression: bad repetition operator: ????',
      {
        __all__: ['Bad regular expression: bad repetition operator: ????'],
      },
    ],
    [
      'a(?=b)(?P<id>c)',
      'https://example.com/{id}',
      'Bad regular expression: invalid or unsupported Perl syntax: (?=',
      {
        __all__: ['Bad regular expression: invalid or unsupported Perl syntax: (?='],
      },
    ],
    [
      'ZUL-(?P<id>\\d+)',
      '$fgfg',
      "Group 'id' in linkifier pattern is not present in URL template.",
      {
        __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
      },
    ],
    [
      'ZUL-(?P<id>\\d+)',
      'https://example.com/{hello}',
      "Group 'hello' in URL template is not present in linkifier pattern.",
      {
        __all__: ["Group 'hello' in URL template is not present in linkifier pattern."],
      },
    ],
    [
      'ZUL-(?P<id>\\d+)-(?P<hello>\\d+)',
      'https://example.com/{hello}',
      "Group 'id' in linkifier pattern is not present in URL template.",
      {
        __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
      },
    ],
    [
      '(foo',
      '{id',
      'Invalid URL template.',
      {
        url_template: ['Invalid URL template.'],
        __all__: ['Bad regular expression: missing ): (foo'],
      },
    ],
    [
      '#(?P<id>[0-9]+)',
      'https://example.com/{bar++}',
      'Invalid URL template.',
      {
        url_template: ['Invalid URL template.'],
        __all__: ['Realm filter with this Realm and Pattern already exists.'],
      },
    ],
    [
      'T-(?P<id>[0-9]+)',
      'https://example.com/{bar++}',
      'Invalid URL template.',
      {
        url_template: ['Invalid URL template.'],
      },
    ],
    [
      '#(?P<id>[0-9]+)',
      'https://example.com/{id}',
      'Realm filter with this Realm and Pattern already exists.',
      {
        __all__: ['Realm filter with this Realm and Pattern already exists.'],
      },
    ],
  ])('pattern %j with template %j is refused: %s', async (pattern, template, msg, errors) => {
    expectRefusal(await add(pattern, template), msg, 'BAD_REQUEST', errors ? { errors } : {});
  });

  test.each([
    [
      'https://zone_{zone}{.domain}.net/t{/location}{/id}{?name,chapter}{#fragment:5}',
      'FOO_(?P<id>[a-f]{5});(?P<zone>[a-f]);(?P<domain>[a-z]+);(?P<location>[a-z]+);(?P<name>[a-z]{2,8});(?P<chapter>[0-9]{2,3});(?P<fragment>[a-z]{2,8})',
    ],
    ['https://example.com/%ba/{id}', 'ZUL-URL-(?P<id>\\d+)'],
    [
      'https://github.com/{org}/{repo}/issue/{id}',
      '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)',
    ],
  ])('the template %j is accepted', async (template, pattern) => {
    await added(pattern, template);
  });

  test('only administrators may add, change, remove or reorder', async () => {
    const [first] = await list();
    for (const as of [cast.moderator, cast.member, cast.guest]) {
      for (const [method, path, params] of [
        ['POST', '/realm/filters', { pattern: 'x(?P<id>1)', url_template: 'https://x.com/{id}' }],
        ['PATCH', `/realm/filters/${first.id}`, { pattern: 'y', url_template: 'https://y.com' }],
        ['DELETE', `/realm/filters/${first.id}`, {}],
        ['PATCH', '/realm/linkifiers', { ordered_linkifier_ids: [] }],
      ] as const) {
        const res = await server.call(method, path, { as, params });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          result: 'error',
          msg: 'Must be an organization administrator',
          code: 'UNAUTHORIZED_PRINCIPAL',
        });
      }
    }
    expect((await list())[0]).toEqual(first);
  });

  test('missing parameters are named', async () => {
    const res = await server.call('POST', '/realm/filters', {
      as: cast.admin,
      params: { pattern: 'abc' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'url_template' });
  });
});

describe('changing, removing and reordering', () => {
  let ids: number[];
  beforeAll(async () => {
    ids = [
      await added('1#(?P<id>[123])', 'https://filter.com/foo/{id}'),
      await added('2#(?P<id>[123])', 'https://filter.com/bar/{id}'),
      await added('3#(?P<id>[123])', 'https://filter.com/baz/{id}'),
    ];
  });
  afterAll(removeAll);

  test('PATCH replaces the pattern and template and keeps the place', async () => {
    const res = await server.call('PATCH', `/realm/filters/${ids[1]}`, {
      as: cast.owner,
      params: { pattern: ' 2#(?P<num>[0-9]+) ', url_template: 'https://filter.com/bar/{num}' },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect((await list())[1]).toEqual({
      pattern: '2#(?P<num>[0-9]+)',
      url_template: 'https://filter.com/bar/{num}',
      id: ids[1],
    });
    // Keeping its own pattern is no clash; taking another's is.
    const same = await server.call('PATCH', `/realm/filters/${ids[1]}`, {
      as: cast.admin,
      params: { pattern: '2#(?P<num>[0-9]+)', url_template: 'https://filter.com/b/{num}' },
    });
    expect(same.status).toBe(200);
    expectRefusal(
      await server.call('PATCH', `/realm/filters/${ids[1]}`, {
        as: cast.admin,
        params: { pattern: '1#(?P<id>[123])', url_template: 'https://filter.com/b/{id}' },
      }),
      'Realm filter with this Realm and Pattern already exists.',
      'BAD_REQUEST',
      { errors: { __all__: ['Realm filter with this Realm and Pattern already exists.'] } },
    );
    expectRefusal(
      await server.call('PATCH', `/realm/filters/${ids[1]}`, {
        as: cast.admin,
        params: { pattern: '#(?P<id>[123])', url_template: '{id' },
      }),
      'Invalid URL template.',
      'BAD_REQUEST',
      { errors: { url_template: ['Invalid URL template.'] } },
    );
  });

  test('a linkifier that does not exist, or of another organization, is not found', async () => {
    const other = await server.createRealm('Elsewhere', 'elsewhere');
    const theirs = await server.call('POST', '/realm/filters', {
      as: other.owner,
      params: { pattern: 'theirs', url_template: 'https://example.com' },
    });
    expect(theirs.status).toBe(200);
    for (const id of [theirs.body.id, 999999]) {
      expectRefusal(
        await server.call('PATCH', `/realm/filters/${id}`, {
          as: cast.admin,
          params: { pattern: 'x', url_template: 'https://example.com' },
        }),
        'Linkifier not found.',
      );
      expectRefusal(
        await server.call('DELETE', `/realm/filters/${id}`, { as: cast.admin }),
        'Linkifier not found.',
      );
    }
    expect((await list(other.owner)).map((l) => l.id)).toEqual([theirs.body.id]);
  });

  test('reordering needs every linkifier exactly once', async () => {
    const reorder = (order: number[]) =>
      server.call('PATCH', '/realm/linkifiers', {
        as: cast.admin,
        params: { ordered_linkifier_ids: order },
      });
    expectRefusal(
      await reorder([ids[0], ids[1], ids[2], ids[0]]),
      'The ordered list must not contain duplicated linkifiers',
    );
    expectRefusal(
      await reorder([ids[0], ids[1]]),
      'The ordered list must enumerate all existing linkifiers exactly once',
    );
    expectRefusal(
      await reorder([ids[0], ids[1], ids[2], 999999]),
      'The ordered list must enumerate all existing linkifiers exactly once',
    );
    expect((await reorder([ids[2], ids[0], ids[1]])).body).toEqual({ result: 'success', msg: '' });
    expect((await list()).map((l) => l.id)).toEqual([ids[2], ids[0], ids[1]]);
    // A new linkifier goes last; removing one keeps the others' order.
    const fourth = await added('4#(?P<id>[123])', 'https://filter.com/qux/{id}');
    const gone = await server.call('DELETE', `/realm/filters/${ids[0]}`, { as: cast.admin });
    expect(gone.body).toEqual({ result: 'success', msg: '' });
    expect((await list()).map((l) => l.id)).toEqual([ids[2], ids[1], fourth]);
  });
});

describe('events', () => {
  afterAll(removeAll);

  test('every change reaches everyone, and applied to /register gives a fresh fetch', async () => {
    const register = (as: User, capable = true) =>
      server.call('POST', '/register', {
        as,
        params: {
          event_types: ['realm_linkifiers'],
          fetch_event_types: ['realm_linkifiers'],
          client_capabilities: { linkifier_url_template: capable },
        },
      });
    const state = (await register(cast.member)).body;
    const guestQueue = (await register(cast.guest)).body.queue_id;
    const legacyQueue = (await register(cast.member2, false)).body.queue_id;
    const a = await added('A-(?P<id>[0-9]+)', 'https://a.example.com/{id}');
    const b = await added('B-(?P<id>[0-9]+)', 'https://b.example.com/{id}');
    await server.ok('PATCH', `/realm/filters/${a}`, {
      as: cast.admin,
      params: { pattern: 'AA-(?P<id>[0-9]+)', url_template: 'https://a.example.com/{id}' },
    });
    await server.ok('PATCH', '/realm/linkifiers', {
      as: cast.admin,
      params: { ordered_linkifier_ids: [b, a] },
    });
    await server.ok('DELETE', `/realm/filters/${b}`, { as: cast.admin });
    const { body } = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(body.events).toHaveLength(5);
    const aa = { pattern: 'AA-(?P<id>[0-9]+)', url_template: 'https://a.example.com/{id}', id: a };
    const bb = { pattern: 'B-(?P<id>[0-9]+)', url_template: 'https://b.example.com/{id}', id: b };
    expect(withoutIds(body.events)[3]).toEqual({
      type: 'realm_linkifiers',
      realm_linkifiers: [bb, aa],
    });
    expect(withoutIds(body.events)[4]).toEqual({
      type: 'realm_linkifiers',
      realm_linkifiers: [aa],
    });
    const fresh = (await register(cast.member)).body;
    expect(applyEvents(state, body.events).realm_linkifiers).toEqual(fresh.realm_linkifiers);
    const guest = await server.call('GET', '/events', {
      as: cast.guest,
      params: { queue_id: guestQueue, last_event_id: -1, dont_block: true },
    });
    expect(guest.body.events).toHaveLength(5);
    const legacy = await server.call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: legacyQueue, last_event_id: -1, dont_block: true },
    });
    expect(legacy.body.events).toEqual([]);
  });
});

describe('rendering', () => {
  beforeAll(async () => {
    await subscribe(server, cast.member, ['linkified']);
    await added('#(?P<id>[0-9]{2,8})', 'https://trac.example.com/ticket/{id}');
    await added('url-(?P<id>[0-9]+)', 'https://example.com/A%20Test/%%%ba/{id}');
    await added('(?P<id>[A-Z][A-Z0-9]*-[0-9]+)', 'https://other.example.com/{id}');
  });
  afterAll(removeAll);

  async function rendered(content: string): Promise<string> {
    const id = await sendToChannel(server, cast.member, 'linkified', 'tickets', content);
    const res = await server.call('GET', `/messages/${id}`, { as: cast.member });
    return res.body.message.content;
  }

  const link = (href: string, text: string) =>
    `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;

  test('matches become links, except inside words, code and links', async () => {
    expect(
      await rendered(
        'We should fix #224 #336 and #115, but not issue#124 or #1124z or [trac #15](https://trac.example.com/ticket/16) today.',
      ),
    ).toBe(
      `<p>We should fix ${link('https://trac.example.com/ticket/224', '#224')} ${link('https://trac.example.com/ticket/336', '#336')} and ${link('https://trac.example.com/ticket/115', '#115')}, but not issue#124 or #1124z or ${link('https://trac.example.com/ticket/16', 'trac #15')} today.</p>`,
    );
    expect(await rendered('`#224` and (#99)')).toBe(
      `<p><code>#224</code> and (${link('https://trac.example.com/ticket/99', '#99')})</p>`,
    );
    expect(await rendered('**#224**')).toBe(
      `<p><strong>${link('https://trac.example.com/ticket/224', '#224')}</strong></p>`,
    );
    expect(await rendered('url-123 is well-escaped')).toBe(
      `<p>${link('https://example.com/A%20Test/%25%25%ba/123', 'url-123')} is well-escaped</p>`,
    );
    expect(await rendered('ABC-12 and ##12')).toBe(
      `<p>${link('https://other.example.com/ABC-12', 'ABC-12')} and ##12</p>`,
    );
  });
});

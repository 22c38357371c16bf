// Bot storage through HTTP: GET, PUT and DELETE /bot_storage, each user's
// entries apart, "Key does not exist." refusing the whole request, the
// 10,000,000-character limit counted in code points, keys sent as a JSON
// list or a repeated query parameter, and bots keeping their state.
import { TestServer, type Cast } from './support/server';
import { expectRefusal } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

type User = Cast['member'];

const success = { result: 'success', msg: '' };
const LIMIT = 10_000_000;

function put(storage: unknown, as: User, encoding: 'form' | 'json' = 'form') {
  return server.call('PUT', '/bot_storage', { as, params: { storage }, encoding });
}

async function stored(as: User, keys?: string[]): Promise<Record<string, string>> {
  const res = await server.call('GET', '/bot_storage', { as, params: { keys } });
  expect([res.status, res.body.result]).toEqual([200, 'success']);
  return res.body.storage;
}

function remove(as: User, keys?: string[], encoding: 'query' | 'form' | 'json' = 'query') {
  return server.call('DELETE', '/bot_storage', { as, params: { keys }, encoding });
}

/** The entries of a storage, sorted by key (`__proto__` too, as an own key). */
function pairs(storage: Record<string, string>): [string, string][] {
  return Object.entries(storage).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A user of their own, whose storage starts empty. */
let made = 0;
function freshUser(isBot = false): Promise<User> {
  made += 1;
  return server.createUser(cast.realm, { email: `storage${made}@example.com`, isBot });
}

describe('storing, reading and removing entries', () => {
  test('put, read all and by keys, replace, remove by keys, remove all', async () => {
    const user = await freshUser();
    expect(await stored(user)).toEqual({});
    expect((await put({ standup_day: 'Monday', lunch: '3 pizzas' }, user)).body).toEqual(success);
    expect((await put({ weather_city: 'Oslo' }, user, 'json')).body).toEqual(success);
    expect(await stored(user)).toEqual({
      standup_day: 'Monday',
      lunch: '3 pizzas',
      weather_city: 'Oslo',
    });
    expect(await stored(user, ['standup_day', 'weather_city'])).toEqual({
      standup_day: 'Monday',
      weather_city: 'Oslo',
    });
    // A key that is there replaces its value; the others stay.
    expect((await put({ standup_day: 'Tuesday', empty: '' }, user)).body).toEqual(success);
    expect(await stored(user)).toEqual({
      standup_day: 'Tuesday',
      lunch: '3 pizzas',
      weather_city: 'Oslo',
      empty: '',
    });
    expect((await remove(user, ['lunch', 'empty'])).body).toEqual(success);
    expect(await stored(user)).toEqual({ standup_day: 'Tuesday', weather_city: 'Oslo' });
    expect((await remove(user)).body).toEqual(success);
    expect(await stored(user)).toEqual({});
    // Removing everything from an empty storage is no error.
    expect((await remove(user)).body).toEqual(success);
  });

  test('keys are case-sensitive text: unusual keys, `__proto__` among them, are plain keys', async () => {
    const user = await freshUser();
    // A computed `__proto__` key is an own key (a literal one would set the prototype).
    const entries: Record<string, string> = {
      ['__proto__']: 'not a prototype',
      constructor: 'c',
      toString: 't',
      Key: 'upper',
      key: 'lower',
      'with space and ünïcödé 😀': 'x',
    };
    expect(Object.hasOwn(entries, '__proto__')).toBe(true);
    for (const encoding of ['json', 'form'] as const) {
      expect((await put(entries, user, encoding)).body).toEqual(success);
      const all = await stored(user);
      expect(pairs(all)).toEqual(pairs(entries));
      expect(Object.hasOwn(all, '__proto__')).toBe(true);
      expect(pairs(await stored(user, ['__proto__', 'key']))).toEqual([
        ['__proto__', 'not a prototype'],
        ['key', 'lower'],
      ]);
      expect((await remove(user, ['__proto__', 'Key'])).body).toEqual(success);
      expect(Object.keys(await stored(user)).sort()).toEqual(
        ['constructor', 'key', 'toString', 'with space and ünïcödé 😀'].sort(),
      );
      expect((await remove(user)).body).toEqual(success);
    }
    // `toString` and `constructor` of an empty storage are not entries.
    expectRefusal(
      await server.call('GET', '/bot_storage', { as: user, params: { keys: ['toString'] } }),
      'Key does not exist.',
    );
    expectRefusal(await remove(user, ['constructor']), 'Key does not exist.');
    expectRefusal(await remove(user, ['__proto__']), 'Key does not exist.');
  });

  test('keys as a repeated query parameter, or a lone one, as well as a JSON list', async () => {
    const user = await freshUser();
    await put({ a: '1', b: '2', c: '3' }, user);
    const repeated = await server.call('GET', '/bot_storage?keys=a&keys=c', { as: user });
    expect(repeated.body).toEqual({ ...success, storage: { a: '1', c: '3' } });
    const lone = await server.call('GET', '/bot_storage?keys=b', { as: user });
    expect(lone.body).toEqual({ ...success, storage: { b: '2' } });
    const json = await server.call('GET', `/bot_storage?keys=${encodeURIComponent('["a","b"]')}`, {
      as: user,
    });
    expect(json.body).toEqual({ ...success, storage: { a: '1', b: '2' } });
    const removed = await server.call('DELETE', '/bot_storage?keys=a&keys=b', { as: user });
    expect(removed.body).toEqual(success);
    expect(await stored(user)).toEqual({ c: '3' });
  });

  test('DELETE takes the keys in a form body, or a JSON body, too', async () => {
    const user = await freshUser();
    await put({ a: '1', b: '2', c: '3' }, user);
    expect((await remove(user, ['a'], 'form')).body).toEqual(success);
    expect(await stored(user)).toEqual({ b: '2', c: '3' });
    expect((await remove(user, ['b'], 'json')).body).toEqual(success);
    expect(await stored(user)).toEqual({ c: '3' });
  });

  test('a key named twice is read and removed once', async () => {
    const user = await freshUser();
    await put({ a: '1', b: '2' }, user);
    expect(await stored(user, ['a', 'a'])).toEqual({ a: '1' });
    expect((await remove(user, ['a', 'a'])).body).toEqual(success);
    expect(await stored(user)).toEqual({ b: '2' });
  });
});

describe('missing keys', () => {
  test('reading a missing key refuses the whole request', async () => {
    const user = await freshUser();
    await put({ present: 'yes' }, user);
    for (const keys of [['absent'], ['present', 'absent']])
      expectRefusal(
        await server.call('GET', '/bot_storage', { as: user, params: { keys } }),
        'Key does not exist.',
      );
  });

  test('removing a missing key removes nothing', async () => {
    const user = await freshUser();
    await put({ a: '1', b: '2' }, user);
    expectRefusal(await remove(user, ['a', 'absent']), 'Key does not exist.');
    expectRefusal(await remove(user, ['absent'], 'form'), 'Key does not exist.');
    expect(await stored(user)).toEqual({ a: '1', b: '2' });
  });

  test('an empty list of keys reads and removes nothing', async () => {
    const user = await freshUser();
    await put({ a: '1' }, user);
    expect(await stored(user, [])).toEqual({});
    expect((await remove(user, [])).body).toEqual(success);
    expect(await stored(user)).toEqual({ a: '1' });
  });
});

describe('each user has a storage of their own', () => {
  test('another user neither reads nor removes the entries, and a same-named key is theirs', async () => {
    const alice = await freshUser();
    const bob = await freshUser();
    await put({ secret: "alice's" }, alice);
    expect(await stored(bob)).toEqual({});
    expectRefusal(
      await server.call('GET', '/bot_storage', { as: bob, params: { keys: ['secret'] } }),
      'Key does not exist.',
    );
    expectRefusal(await remove(bob, ['secret']), 'Key does not exist.');
    await put({ secret: "bob's" }, bob);
    expect((await remove(bob)).body).toEqual(success);
    expect(await stored(alice)).toEqual({ secret: "alice's" });
    expect(await stored(bob)).toEqual({});
  });

  test('bots keep entries too, apart from their owner and other users', async () => {
    const bot = await freshUser(true);
    expect((await put({ state: '{"count": 1}' }, bot, 'json')).body).toEqual(success);
    expect(await stored(bot, ['state'])).toEqual({ state: '{"count": 1}' });
    await put({ state: '{"count": 2}' }, bot);
    expect(await stored(bot)).toEqual({ state: '{"count": 2}' });
    expect(await stored(cast.owner)).toEqual({});
    expect((await remove(bot, ['state'])).body).toEqual(success);
    expect(await stored(bot)).toEqual({});
  });
});

describe('malformed requests', () => {
  test.each([
    ['a number', { count: 1 }, 'storage["count"] is not a string'],
    ['a boolean', { flag: true }, 'storage["flag"] is not a string'],
    ['null', { nothing: null }, 'storage["nothing"] is not a string'],
    ['a list', { list: ['a'] }, 'storage["list"] is not a string'],
    ['an object', { nested: { a: 'b' } }, 'storage["nested"] is not a string'],
  ])(
    'a value that is %s is refused, naming it, and nothing is stored',
    async (_l, storage, msg) => {
      const user = await freshUser();
      for (const encoding of ['form', 'json'] as const) {
        expectRefusal(await put({ fine: 'x', ...storage }, user, encoding), msg);
      }
      expect(await stored(user)).toEqual({});
    },
  );

  test('storage must be an object, and is required', async () => {
    const user = await freshUser();
    expectRefusal(await put(['a', 'b'], user, 'json'), 'storage is not a dict');
    expectRefusal(await put('text', user, 'json'), 'storage is not a dict');
    expectRefusal(
      await server.call('PUT', '/bot_storage', { as: user, params: {} }),
      "Missing 'storage' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'storage' },
    );
    expect(await stored(user)).toEqual({});
  });

  test('a NUL character in a key or a value is refused, and nothing is stored', async () => {
    const user = await freshUser();
    for (const encoding of ['json', 'form'] as const) {
      expectRefusal(
        await put({ fine: 'x', 'bad\u0000key': 'v' }, user, encoding),
        'storage contains NULL (0x00) characters.',
      );
      expectRefusal(
        await put({ fine: 'x', key: 'bad\u0000value' }, user, encoding),
        'storage["key"] contains NULL (0x00) characters.',
      );
    }
    expect(await stored(user)).toEqual({});
    expectRefusal(
      await server.call('GET', '/bot_storage', { as: user, params: { keys: ['a\u0000'] } }),
      'keys[0] contains NULL (0x00) characters.',
    );
    expectRefusal(
      await remove(user, ['ok', 'a\u0000']),
      'keys[1] contains NULL (0x00) characters.',
    );
  });

  test('an empty storage object changes nothing', async () => {
    const user = await freshUser();
    await put({ a: '1' }, user);
    expect((await put({}, user, 'json')).body).toEqual(success);
    expect(await stored(user)).toEqual({ a: '1' });
  });
});

describe('the storage limit', () => {
  const over = (by: number) =>
    `Request exceeds storage limit by ${by} characters. The limit is ${LIMIT} characters.`;

  test('keys and values together may hold exactly the limit, and not one character more', async () => {
    const user = await freshUser();
    // One character of key, the rest value: exactly the limit.
    expect((await put({ k: 'x'.repeat(LIMIT - 1) }, user, 'json')).body).toEqual(success);
    // A further key of one character and an empty value passes it by one.
    expectRefusal(await put({ a: '' }, user, 'json'), over(1));
    // Replacing the entry with one character more also passes it by one:
    // the entry replaced no longer counts, the new value does.
    expectRefusal(await put({ k: 'x'.repeat(LIMIT) }, user, 'json'), over(1));
    // Nothing of a refused request is stored, even its entries that would fit.
    expectRefusal(await put({ small: '', k: 'y'.repeat(LIMIT) }, user, 'json'), over(6));
    const all = await stored(user);
    expect(Object.keys(all)).toEqual(['k']);
    expect(all.k).toBe('x'.repeat(LIMIT - 1));
    // Replacing with a shorter value frees room.
    expect((await put({ k: 'short' }, user, 'json')).body).toEqual(success);
    expect((await put({ a: '' }, user, 'json')).body).toEqual(success);
    expect(await stored(user)).toEqual({ k: 'short', a: '' });
  });

  test('one request over the limit on an empty storage names the excess', async () => {
    const user = await freshUser();
    expectRefusal(await put({ key: 'v'.repeat(LIMIT) }, user, 'json'), over(3));
    expect(await stored(user)).toEqual({});
  });

  test('a character outside the Basic Multilingual Plane counts as one', async () => {
    const user = await freshUser();
    const emoji = '\u{1F600}'; // two UTF-16 code units, one character
    expect(emoji.length).toBe(2);
    // 1 (key) + (LIMIT - 2) + 1 (emoji): exactly the limit.
    const value = 'x'.repeat(LIMIT - 2) + emoji;
    expect((await put({ k: value }, user, 'json')).body).toEqual(success);
    expect((await stored(user, ['k'])).k).toBe(value);
    // What is stored counts the emoji as one too: one more character is one over.
    expectRefusal(await put({ a: '' }, user, 'json'), over(1));
    // An emoji key and value count one each.
    expect((await put({ k: 'x'.repeat(LIMIT - 3) }, user, 'json')).body).toEqual(success);
    expect((await put({ [emoji]: emoji }, user, 'json')).body).toEqual(success);
    expectRefusal(await put({ b: '' }, user, 'json'), over(1));
  });

  test('two requests at once, each fitting alone but not together: one is refused', async () => {
    const user = await freshUser();
    const half = LIMIT / 2 + 10;
    const replies = await Promise.all(
      ['a', 'b'].map((key) => put({ [key]: 'x'.repeat(half - 1) }, user, 'json')),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400]);
    expectRefusal(
      replies.find((r) => r.status === 400)!,
      over(2 * half - LIMIT),
    );
    const all = await stored(user);
    expect(Object.keys(all)).toHaveLength(1);
    expect(Object.values(all)[0]).toHaveLength(half - 1);
  });

  test("one user's entries do not count against another's", async () => {
    const full = await freshUser();
    const other = await freshUser();
    expect((await put({ k: 'x'.repeat(LIMIT - 1) }, full, 'json')).body).toEqual(success);
    expect((await put({ k: 'y'.repeat(LIMIT - 1) }, other, 'json')).body).toEqual(success);
    expect((await remove(other)).body).toEqual(success);
    expect((await remove(full)).body).toEqual(success);
  });
});

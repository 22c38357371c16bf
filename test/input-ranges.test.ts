// Values past what the server stores: numbers beyond the 64-bit (or the
// contract's) range, Infinity, NUL characters, over-long texts and over-long
// lists are refused with a 400 naming the parameter (and the limit), before
// any query; path ids are decimal digits or invalid. None is a 500, and
// nothing is stored other than as sent.
import { loadSpec, specPath } from '../src/http/spec';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const error = (msg: string) => ({
  status: 400,
  body: { result: 'error', msg, code: 'BAD_REQUEST' },
});
const outcome = (res: { status: number; body: unknown }) => ({
  status: res.status,
  body: res.body,
});

describe('numbers out of range', () => {
  test.each([
    ['/messages/9223372036854775807', 'message_id is too large'],
    ['/messages/99999999999999999999999', 'message_id is too large'],
    ['/streams/2147483648', 'stream_id is too large'],
  ])('GET %s is a 400', async (path, msg) => {
    expect(outcome(await server.call('GET', path, { as: cast.member }))).toEqual(error(msg));
  });

  test('a parameter past the 64-bit range is a 400', async () => {
    const res = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: 'q', last_event_id: '9223372036854775808' },
    });
    expect(outcome(res)).toEqual(error('last_event_id is too large'));
  });

  test('last_update_id past the 64-bit range is a 400', async () => {
    const res = await server.call('POST', '/users/me/presence', {
      as: cast.member,
      params: { status: 'active', last_update_id: '9223372036854775808' },
    });
    expect(outcome(res)).toEqual(error('last_update_id is too large'));
  });

  test('a timestamp past year 9999 is a 400', async () => {
    const res = await server.call('POST', '/scheduled_messages', {
      as: cast.member,
      params: {
        type: 'direct',
        to: [cast.member2.id],
        content: 'later',
        scheduled_delivery_timestamp: '9007199254740993',
      },
    });
    expect(outcome(res)).toEqual(error('scheduled_delivery_timestamp is too large'));
  });

  test('1e400 (Infinity) in a list of ids is not an integer', async () => {
    const res = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'infinite', description: 'd', members: `[${cast.member.id},1e400]` },
    });
    expect(outcome(res)).toEqual(error('members[1] is not an integer'));
  });

  test('1e400 for a setting is refused, not stored as null', async () => {
    const res = await server.call('PATCH', '/realm', {
      as: cast.owner,
      params: { message_content_edit_limit_seconds: '1e400' },
    });
    expect(res.status).toBe(400);
    const realm = await server.services.db.read((db) =>
      db.realm.findUniqueOrThrow({ where: { id: cast.realm.id } }),
    );
    expect(realm).toEqual(expect.objectContaining({ id: cast.realm.id }));
    const after = await server.call('POST', '/register', { as: cast.owner });
    expect(after.body.realm_message_content_edit_limit_seconds).not.toBeNull();
  });
});

describe('path ids are decimal digits', () => {
  test.each(['0x1', '%2B1', '1e0', '1.0', '0b1', '%201'])(
    'GET /streams/%s is a 400',
    async (id) => {
      const res = await server.call('GET', `/streams/${id}`, { as: cast.member });
      expect(outcome(res)).toEqual(error('stream_id is not an integer'));
    },
  );

  test('DELETE /users/0x10 deactivates nobody', async () => {
    const res = await server.call('DELETE', `/users/0x${cast.member2.id.toString(16)}`, {
      as: cast.owner,
    });
    expect(outcome(res)).toEqual(error('user_id is not an integer'));
    const user = await server.call('GET', `/users/${cast.member2.id}`, { as: cast.owner });
    expect(user.body.user.is_active).toBe(true);
  });
});

describe('NUL characters', () => {
  test.each([
    ['PATCH', '/settings', { full_name: 'King\u0000Hamlet' }, 'full_name'],
    ['POST', '/users/me/status', { status_text: 'out\u0000' }, 'status_text'],
    ['POST', '/user_groups/create', { name: 'g\u0000', description: 'd', members: '[]' }, 'name'],
  ])('%s %s refuses them', async (method, path, params, name) => {
    const res = await server.call(method, path, { as: cast.admin, params });
    expect(outcome(res)).toEqual(error(`${name} contains NULL (0x00) characters.`));
  });

  test('the name stays as it was', async () => {
    const me = await server.call('GET', '/users/me', { as: cast.admin });
    expect(me.body.full_name).toBe('Iago Admin');
  });
});

describe('texts past their maximum length', () => {
  const long = 'x'.repeat(1_000_000);
  test.each([
    [
      'POST',
      '/user_groups/create',
      { name: 'long', description: long, members: '[]' },
      'description is too long (limit: 1024 characters)',
    ],
    [
      'POST',
      '/navigation_views',
      { fragment: 'narrow/is/starred', is_pinned: true, name: long },
      'name is too long (limit: 100 characters)',
    ],
    [
      'POST',
      '/users/me/apns_device_token',
      { token: 'c0ffee', appid: long },
      'appid is too long (limit: 255 characters)',
    ],
    [
      'PATCH',
      '/settings',
      { default_language: long },
      'default_language is too long (limit: 50 characters)',
    ],
  ])('%s %s is a 400 naming the limit', async (method, path, params, msg) => {
    const res = await server.call(method, path, { as: cast.admin, params });
    expect(outcome(res)).toEqual(error(msg));
  });
});

describe('lists of 100,000 ids', () => {
  const ids = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i + 1));
  test('are refused with a 400 naming the limit', async () => {
    const res = await server.call('POST', '/messages/flags', {
      as: cast.member,
      params: { messages: ids, op: 'add', flag: 'read' },
    });
    expect(outcome(res)).toEqual(error('messages has too many items (limit: 10000)'));
  });

  test('10,000 ids, the limit, are taken on both databases', async () => {
    const res = await server.call('POST', '/messages/flags', {
      as: cast.member,
      params: {
        messages: JSON.stringify(Array.from({ length: 10_000 }, (_, i) => i + 1)),
        op: 'add',
        flag: 'read',
      },
    });
    expect(res.status).toBe(200);
  });
});

describe('bodies the server cannot read', () => {
  const truncated = {
    body: '--b\r\nContent-Disposition: form-data; name="username"\r\n\r\nhaml',
    headers: { 'content-type': 'multipart/form-data; boundary=b' },
  };
  test.each([
    ['POST', '/fetch_api_key', undefined],
    ['PATCH', '/settings', 'member'],
    ['POST', '/messages', 'member'],
    ['POST', '/user_uploads', 'member'],
  ] as const)('a truncated multipart body to %s %s is a 400', async (method, path, who) => {
    const res = await server.call(method, path, { as: who ? cast[who] : undefined, ...truncated });
    expect(outcome(res)).toEqual(error('Malformed multipart request body'));
  });

  test('a truncated multipart body is a 400 for every operation that reads a body', async () => {
    const { operations } = await loadSpec(specPath);
    const answers = new Map<string, unknown>();
    for (const op of operations) {
      if (op.method === 'GET') continue;
      const path = op.path.replace(/\{\w+\}/g, '1');
      const res = await server.call(op.method, path, {
        as: op.authenticated ? cast.member : undefined,
        ...truncated,
      });
      answers.set(`${op.method} ${op.path}`, outcome(res));
    }
    const expected = error('Malformed multipart request body');
    expect(Object.fromEntries(answers)).toEqual(
      Object.fromEntries([...answers.keys()].map((key) => [key, expected])),
    );
  });

  test('a 50 MB upload is a 413 naming the limit', async () => {
    const res = await server.call('POST', '/user_uploads', {
      as: cast.member,
      encoding: 'multipart',
      files: { file: { name: 'big.bin', content: Buffer.alloc(50 * 1024 * 1024) } },
    });
    expect(outcome(res)).toEqual({
      status: 413,
      body: {
        result: 'error',
        msg: 'Uploaded file is larger than the allowed limit of 25 MiB',
        code: 'PAYLOAD_TOO_LARGE',
      },
    });
  });
});

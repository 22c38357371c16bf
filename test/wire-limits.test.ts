// Bodies the server cannot take: more than 1,000 fields, malformed bodies
// (400), bodies over their limit (413, naming it), and body types an
// operation does not read (415, naming those it does). None is a 500, and
// nothing is dropped silently.
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const urlencoded = { 'content-type': 'application/x-www-form-urlencoded' };
const boundary = 'wire-boundary';
const multipart = { 'content-type': `multipart/form-data; boundary=${boundary}` };
const part = (name: string, value: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const end = `--${boundary}--\r\n`;
const fields = (count: number) => Array.from({ length: count }, (_, i) => `f${i}=x`).join('&');

function expectError(
  res: { status: number; body: unknown },
  status: number,
  code: string,
  msg: string,
) {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { result: 'error', msg, code },
  });
}

describe('more than 1,000 fields', () => {
  const tooMany = 'Too many fields in the request body (limit: 1000)';

  test('in a urlencoded, multipart or JSON body get a 400 naming the limit', async () => {
    expectError(
      await server.call('PATCH', '/settings', {
        as: cast.member,
        body: `enter_sends=true&${fields(1000)}`,
        headers: urlencoded,
      }),
      400,
      'BAD_REQUEST',
      tooMany,
    );
    const parts = Array.from({ length: 1001 }, (_, i) => part(`f${i}`, 'x')).join('') + end;
    expectError(
      await server.call('PATCH', '/settings', { as: cast.member, body: parts, headers: multipart }),
      400,
      'BAD_REQUEST',
      tooMany,
    );
    const json = JSON.stringify(
      Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, 1])),
    );
    expectError(
      await server.call('PATCH', '/settings', {
        as: cast.member,
        body: json,
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'BAD_REQUEST',
      tooMany,
    );
  });

  test('in the query string get a 400 naming the limit', async () => {
    const res = await server.call('GET', `/users/me?${fields(1001)}`, { as: cast.member });
    expectError(res, 400, 'BAD_REQUEST', 'Too many fields in the query string (limit: 1000)');
  });

  test('1,000 fields are all read, none dropped', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      body: `${fields(999)}&timezone=Asia/Tokyo`,
      headers: urlencoded,
    });
    expect(res.status).toBe(200);
    expect(res.body.ignored_parameters_unsupported).toHaveLength(999);
    const settings = await server.call('POST', '/register', {
      as: cast.member,
      params: { fetch_event_types: ['user_settings'], event_types: [] },
    });
    expect(settings.body.user_settings.timezone).toBe('Asia/Tokyo');
  });
});

describe('malformed bodies get a 400', () => {
  test('invalid JSON, and JSON that is not an object', async () => {
    const json = { 'content-type': 'application/json' };
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member,
        body: '{"type": "direct",',
        headers: json,
      }),
      400,
      'BAD_REQUEST',
      'Malformed JSON in the request body',
    );
    for (const body of ['[1, 2]', '"text"', '5', 'null']) {
      expectError(
        await server.call('POST', '/messages', { as: cast.member, body, headers: json }),
        400,
        'BAD_REQUEST',
        'A JSON request body must be an object',
      );
    }
  });

  test('invalid percent-encoding, in the body or the query string', async () => {
    expectError(
      await server.call('PATCH', '/settings', {
        as: cast.member,
        body: 'timezone=%E0%A4%A',
        headers: urlencoded,
      }),
      400,
      'BAD_REQUEST',
      'Malformed request body: invalid percent-encoding',
    );
    expectError(
      await server.call('GET', '/users/me?x=%zz', { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Malformed query string: invalid percent-encoding',
    );
  });

  test('text that is not UTF-8', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'BAD_REQUEST', 'Malformed request body: not valid UTF-8');
  });

  test('a truncated multipart body, or one without a boundary, in every kind of operation', async () => {
    const body = part('username', cast.member.email) + part('password', 'password') + end;
    const truncated = body.slice(0, body.length - 20);
    expectError(
      await server.call('POST', '/fetch_api_key', { body: truncated, headers: multipart }),
      400,
      'BAD_REQUEST',
      'Malformed multipart request body',
    );
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member,
        body: truncated,
        headers: multipart,
      }),
      400,
      'BAD_REQUEST',
      'Malformed multipart request body',
    );
    expectError(
      await server.call('POST', '/user_uploads', {
        as: cast.member,
        body: truncated,
        headers: multipart,
      }),
      400,
      'BAD_REQUEST',
      'Malformed multipart request body',
    );
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member,
        body,
        headers: { 'content-type': 'multipart/form-data' },
      }),
      400,
      'BAD_REQUEST',
      'Malformed multipart request body',
    );
  });
});

describe('bodies over their limit get a 413 naming it', () => {
  test('a urlencoded or JSON body over 10 MiB', async () => {
    const big = 'a'.repeat(10 * 1024 * 1024);
    const msg = 'Request body is larger than the limit of 10 MiB';
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member,
        body: `content=${big}`,
        headers: urlencoded,
      }),
      413,
      'PAYLOAD_TOO_LARGE',
      msg,
    );
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member,
        body: JSON.stringify({ content: big }),
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
      msg,
    );
  });

  test('multipart text fields over 10 MiB', async () => {
    const body = part('content', 'a'.repeat(10 * 1024 * 1024 + 1)) + end;
    expectError(
      await server.call('POST', '/messages', { as: cast.member, body, headers: multipart }),
      413,
      'PAYLOAD_TOO_LARGE',
      'Form fields are larger than the limit of 10 MiB',
    );
  });

  test('an uploaded file over 25 MiB, and the server serves on', async () => {
    const res = await server.call('POST', '/user_uploads', {
      as: cast.member,
      encoding: 'multipart',
      files: { file: { name: 'big.bin', content: Buffer.alloc(25 * 1024 * 1024 + 1) } },
    });
    expectError(
      res,
      413,
      'PAYLOAD_TOO_LARGE',
      'Uploaded file is larger than the allowed limit of 25 MiB',
    );
    const small = await server.call('POST', '/user_uploads', {
      as: cast.member,
      encoding: 'multipart',
      files: { file: { name: 'small.txt', content: 'small' } },
    });
    expect(small.status).toBe(200);
  });
});

describe('body types an operation does not read get a 415 naming those it does', () => {
  const all = 'application/json, application/x-www-form-urlencoded, multipart/form-data';

  test('a text body, and a body without a Content-Type', async () => {
    const text = await server.call('POST', '/messages', {
      as: cast.member,
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(
      text,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type text/plain is not supported here; send ${all}`,
    );
    const none = await server.call('DELETE', `/messages/1`, { as: cast.member, body: 'hello' });
    expectError(
      none,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `A request body without a Content-Type is not supported here; send ${all}`,
    );
  });

  test('a form for a file upload, which reads multipart only', async () => {
    const res = await server.call('POST', '/user_uploads', {
      as: cast.member,
      params: { file: 'x' },
    });
    expectError(
      res,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type application/x-www-form-urlencoded is not supported here; send multipart/form-data',
    );
    const json = await server.call('POST', '/realm/emoji/wire', {
      as: cast.admin,
      encoding: 'json',
      params: {},
    });
    expectError(
      json,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type application/json is not supported here; send multipart/form-data',
    );
  });

  test('another charset, or a compressed body', async () => {
    const latin = await server.call('PATCH', '/settings', {
      as: cast.member,
      body: 'timezone=UTC',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
    });
    expectError(
      latin,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Charset iso-8859-1 is not supported; send UTF-8',
    );
    const gzip = await server.call('PATCH', '/settings', {
      as: cast.member,
      body: 'timezone=UTC',
      headers: { ...urlencoded, 'content-encoding': 'gzip' },
    });
    expectError(
      gzip,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Encoding gzip is not supported; send the body uncompressed',
    );
  });

  test('the body of a GET is ignored, whatever its type', async () => {
    const res = await server.call('GET', '/users/me', {
      as: cast.member,
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(200);
    expect(res.body.ignored_parameters_unsupported).toBeUndefined();
  });
});

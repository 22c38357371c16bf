// GET /user_uploads/{realm_id_str}/{filename} answers a temporary URL, which
// serves the file without credentials for 60 seconds; tokens cannot be
// altered, reused for another file, or used after they expire.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast } from './support/server';
import { expectError, sendDirect } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());
afterEach(() => jest.restoreAllMocks());

async function upload(as: User, name: string, content: string, type = 'text/plain') {
  const res = await server.call('POST', '/user_uploads', {
    as,
    encoding: 'multipart',
    files: { file: { name, content, type } },
  });
  expect(res.status).toBe(200);
  return res.body.url as string;
}

/** Asks the API for a temporary URL of the file at `url` (`/user_uploads/...`). */
function temporaryUrlOf(as: User, url: string) {
  return server.call('GET', url, { as });
}

/** GETs a path of the server without credentials. */
async function anonymous(path: string) {
  const res = await fetch(`${server.url}${path}`);
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    text: await res.text(),
  };
}

test('the API answers a temporary URL that serves the file without credentials', async () => {
  const url = await upload(cast.member, 'notes.txt', 'secret notes');
  const res = await temporaryUrlOf(cast.member, url);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    url: expect.stringMatching(/^\/user_uploads\/temporary\/[0-9A-F]+\/notes\.txt$/),
  });
  const served = await anonymous(res.body.url);
  expect(served).toEqual({
    status: 200,
    type: 'text/plain; charset=utf-8',
    disposition: expect.stringContaining('filename="notes.txt"'),
    text: 'secret notes',
  });
  // The file's own URL still wants credentials.
  expect((await anonymous(url)).status).toBe(401);
});

test('the URL expires after 60 seconds', async () => {
  const url = await upload(cast.member, 'brief.txt', 'short-lived');
  const issued = Date.now();
  const temporary = (await temporaryUrlOf(cast.member, url)).body.url;
  const now = jest.spyOn(Date, 'now');
  now.mockReturnValue(issued + 59_000);
  expect((await anonymous(temporary)).status).toBe(200);
  now.mockReturnValue(issued + 62_000);
  const late = await anonymous(temporary);
  expect([late.status, JSON.parse(late.text)]).toEqual([
    400,
    { result: 'error', msg: 'Invalid token', code: 'BAD_REQUEST' },
  ]);
});

test('altered tokens, other file names and deleted files are refused', async () => {
  const url = await upload(cast.member, 'a.txt', 'aaa');
  const temporary: string = (await temporaryUrlOf(cast.member, url)).body.url;
  const [, , , token] = temporary.split('/');
  const error = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
  const answer = async (path: string) => {
    const res = await anonymous(path);
    return [res.status, JSON.parse(res.text)];
  };
  // Another path id inside the same signature.
  const forged = Buffer.from(
    Buffer.from(token, 'hex')
      .toString('utf8')
      .replace(/a\.txt/, 'b.txt'),
  )
    .toString('hex')
    .toUpperCase();
  expect(await answer(`/user_uploads/temporary/${forged}/b.txt`)).toEqual([
    400,
    error('Invalid token'),
  ]);
  expect(await answer(`/user_uploads/temporary/ZZ/a.txt`)).toEqual([400, error('Invalid token')]);
  expect(await answer(`/user_uploads/temporary/${token}/other.txt`)).toEqual([
    400,
    error('Invalid filename'),
  ]);
  const id = (await server.call('GET', '/attachments', { as: cast.member })).body.attachments.find(
    (a: { path_id: string }) => url.endsWith(a.path_id),
  ).id;
  expect((await server.call('DELETE', `/attachments/${id}`, { as: cast.member })).status).toBe(200);
  expect(await answer(temporary)).toEqual([400, error('Invalid token')]);
});

test('only those who may see the file get a URL', async () => {
  const url = await upload(cast.member, 'shared.txt', 'for cordelia');
  expectError(
    await temporaryUrlOf(cast.member2, url),
    403,
    'BAD_REQUEST',
    'You are not authorized to view this file.',
  );
  await sendDirect(server, cast.member, [cast.member2.id], `[shared](${url})`);
  expect((await temporaryUrlOf(cast.member2, url)).status).toBe(200);
  expectError(
    await server.call('GET', `/user_uploads/${cast.realm.id}/000000000000000000000000/none.txt`, {
      as: cast.member,
    }),
    404,
    'NOT_FOUND',
    'This file does not exist or has been deleted.',
  );
  const { owner } = await server.createRealm('Elsewhere', 'elsewhere');
  expectError(
    await temporaryUrlOf(owner, url),
    404,
    'NOT_FOUND',
    'This file does not exist or has been deleted.',
  );
});

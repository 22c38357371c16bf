// Multipart bodies as Python's requests writes them: file parts carry a file
// name but no Content-Type. Such a part is a file (RFC 7578 makes its type
// text/plain; the stored type is guessed from the name), while a part without
// a file name stays a text field. Bodies are written by hand, byte for byte.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const BOUNDARY = 'b0a7c1e5d2f34e6a8c9d0e1f2a3b4c5d';

/** One part: its Content-Disposition parameters, optional extra headers, and its bytes. */
interface Part {
  disposition: string;
  headers?: string[];
  content: string | Buffer;
}

function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head = [
      `--${BOUNDARY}`,
      `Content-Disposition: form-data; ${part.disposition}`,
      ...(part.headers ?? []),
      '',
      '',
    ].join('\r\n');
    chunks.push(Buffer.from(head), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

function post(as: User, path: string, parts: Part[]) {
  return server.call('POST', path, {
    as,
    body: multipart(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
}

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('rest of a tiny png'),
]);

test('a file part without a Content-Type is uploaded, and served with the type its name gives', async () => {
  // The field name is the client's local path, as the Python client sends it.
  const res = await post(cast.member, '/user_uploads', [
    { disposition: 'name="/tmp/tmpab12/notes.txt"; filename="notes.txt"', content: 'plain words' },
  ]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    uri: expect.stringMatching(/^\/user_uploads\/\d+\/[0-9a-f]{24}\/notes\.txt$/),
    url: res.body.uri,
    filename: 'notes.txt',
  });
  const download = await fetch(`${server.url}${res.body.url}`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${cast.member.email}:${cast.member.apiKey}`).toString('base64')}`,
    },
  });
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(await download.text()).toBe('plain words');
});

test('an image part without a Content-Type becomes a custom emoji', async () => {
  const res = await post(cast.member, '/realm/emoji/raw_part', [
    { disposition: 'name="/tmp/tmpab12/smile.png"; filename="smile.png"', content: PNG },
  ]);
  expect(res.body).toEqual({ result: 'success', msg: '' });
  const list = await server.call('GET', '/realm/emoji', { as: cast.member });
  expect(Object.values(list.body.emoji)).toContainEqual(
    expect.objectContaining({ name: 'raw_part', deactivated: false, author_id: cast.member.id }),
  );
});

test('an empty file name still makes a file part', async () => {
  const res = await post(cast.member2, '/user_uploads', [
    { disposition: 'name="file"; filename=""', content: 'nameless' },
  ]);
  expect(res.status).toBe(200);
  expect(res.body.filename).toBe('uploaded-file');
});

test('a part without a file name is a text field, so no file was sent', async () => {
  const res = await post(cast.member, '/user_uploads', [
    { disposition: 'name="notes.txt"', content: 'just a field' },
  ]);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    result: 'error',
    msg: 'You must specify a file to upload',
    code: 'BAD_REQUEST',
  });
});

test('text fields and a typeless file part travel together', async () => {
  const res = await post(cast.member, '/realm/emoji/with_fields', [
    { disposition: 'name="note"', content: 'a text field' },
    { disposition: 'name="f"; filename="x.png"', content: PNG },
  ]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    ignored_parameters_unsupported: ['note'],
  });
});

// POST /user_uploads, GET /attachments and downloading at /user_uploads/<path_id>:
// storing, the refusals, claiming by a message, who may download, and hostile
// file names that must never leave the upload store.
import { request as httpRequest } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { User } from '../generated/prisma/sqlite/client';
import { sendDirect, sendToChannel, subscribe } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general'], {
    principals: [cast.member.id, cast.member2.id],
  });
  await subscribe(server, cast.member, ['hideout'], { invite_only: true });
});
afterAll(() => server.stop());

function upload(
  as: User,
  files: Record<string, { name: string; content: string | Buffer; type?: string }>,
) {
  return server.call('POST', '/user_uploads', { as, encoding: 'multipart', files });
}

function basic(user: User): string {
  return `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
}

/** GET of a raw path (sent as written, without normalizing dots), with `as`'s credentials. */
function download(
  path: string,
  as?: User,
): Promise<{ status: number; type: string; disposition: string; text: string }> {
  return new Promise((done, fail) => {
    const req = httpRequest(
      `${server.url}/`,
      { method: 'GET', path, headers: as ? { authorization: basic(as) } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            disposition: String(res.headers['content-disposition'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end();
  });
}

async function attachments(as: User) {
  const res = await server.call('GET', '/attachments', { as });
  expect(res.status).toBe(200);
  return res.body;
}

const notFound = { result: 'error', msg: 'File not found', code: 'NOT_FOUND' };

test('a file is stored under a new path id and listed, unclaimed, in attachments', async () => {
  const res = await upload(cast.member, {
    file: { name: 'notes.txt', content: 'hello upload', type: 'text/plain' },
  });
  expect(res.status).toBe(200);
  const pathId = res.body.url.replace('/user_uploads/', '');
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    uri: res.body.url,
    url: `/user_uploads/${pathId}`,
    filename: 'notes.txt',
  });
  expect(pathId).toMatch(new RegExp(`^${cast.realm.id}/[0-9a-f]{24}/notes\\.txt$`));
  expect(readFileSync(resolve(server.services.config.uploadsDir, pathId), 'utf8')).toBe(
    'hello upload',
  );

  const body = await attachments(cast.member);
  const mine = body.attachments.find((a: { path_id: string }) => a.path_id === pathId);
  expect(mine).toEqual({
    id: expect.any(Number),
    name: 'notes.txt',
    path_id: pathId,
    size: 12,
    create_time: expect.any(Number),
    messages: [],
  });
  expect(Math.abs(mine.create_time - Date.now())).toBeLessThan(60_000);
  expect(body.upload_space_used).toBeGreaterThanOrEqual(12);
  expect((await attachments(cast.member2)).attachments).toEqual([]);
});

test('any field name is accepted; no file or two files are refused', async () => {
  const ok = await upload(cast.member2, {
    whatever: { name: 'a.bin', content: Buffer.from([1, 2, 3]) },
  });
  expect(ok.status).toBe(200);
  expect(ok.body.filename).toBe('a.bin');

  const none = await server.call('POST', '/user_uploads', {
    as: cast.member,
    encoding: 'multipart',
    params: { x: 'y' },
  });
  expect(none.status).toBe(400);
  expect(none.body).toEqual({
    result: 'error',
    msg: 'You must specify a file to upload',
    code: 'BAD_REQUEST',
  });
  const two = await upload(cast.member, {
    a: { name: 'a.txt', content: 'a' },
    b: { name: 'b.txt', content: 'b' },
  });
  expect(two.status).toBe(400);
  expect(two.body).toEqual({
    result: 'error',
    msg: 'You may only upload one file at a time',
    code: 'BAD_REQUEST',
  });
});

test("upload_space_used adds up the sizes of the organization's files", async () => {
  const before = (await attachments(cast.admin)).upload_space_used;
  await upload(cast.admin, { file: { name: 'big.txt', content: 'x'.repeat(1000) } });
  expect((await attachments(cast.member)).upload_space_used).toBe(before + 1000);
});

test("a message claims its sender's files, and its recipients may then download them", async () => {
  const res = await upload(cast.member, {
    file: { name: 'report.pdf', content: '%PDF-1.4 fake', type: 'application/pdf' },
  });
  const { url } = res.body;
  const pathId = url.replace('/user_uploads/', '');

  // Before any message, only the uploader may download it.
  const own = await download(url, cast.member);
  expect(own.status).toBe(200);
  expect(own.type).toBe('application/pdf');
  expect(own.text).toBe('%PDF-1.4 fake');
  expect(own.disposition).toContain('filename="report.pdf"');
  const early = await download(url, cast.member2);
  expect(early.status).toBe(404);
  expect(JSON.parse(early.text)).toEqual(notFound);

  const messageId = await sendDirect(
    server,
    cast.member,
    [cast.member2.id],
    `See [report.pdf](${url})`,
  );
  const listed = (await attachments(cast.member)).attachments.find(
    (a: { path_id: string }) => a.path_id === pathId,
  );
  expect(listed.messages).toEqual([{ id: messageId, date_sent: expect.any(Number) }]);
  expect(Math.abs(listed.messages[0].date_sent - Date.now())).toBeLessThan(60_000);

  expect((await download(url, cast.member2)).status).toBe(200);
  // Neither a recipient nor in a public channel: still hidden.
  const outsider = await download(url, cast.moderator);
  expect(outsider.status).toBe(404);
  expect(JSON.parse(outsider.text)).toEqual(notFound);
});

test("a message does not claim another user's file", async () => {
  const { url } = (await upload(cast.member2, { file: { name: 'theirs.txt', content: 'theirs' } }))
    .body;
  await sendToChannel(server, cast.member, 'general', 'files', `[theirs](${url})`);
  const listed = (await attachments(cast.member2)).attachments.find(
    (a: { name: string }) => a.name === 'theirs.txt',
  );
  expect(listed.messages).toEqual([]);
  expect((await download(url, cast.moderator)).status).toBe(404);
});

test('files in public channel messages are readable by members, not guests; private channels stay private', async () => {
  const pub = (
    await upload(cast.member, {
      file: { name: 'pic.png', content: 'not really a png', type: 'image/png' },
    })
  ).body.url;
  await sendToChannel(server, cast.member, 'general', 'files', `[pic](${pub})`);
  const seen = await download(pub, cast.moderator);
  expect(seen.status).toBe(200);
  expect(seen.type).toBe('image/png');
  expect((await download(pub, cast.guest)).status).toBe(404);

  const secret = (await upload(cast.member, { file: { name: 'secret.txt', content: 'shh' } })).body
    .url;
  await sendToChannel(server, cast.member, 'hideout', 'files', `[s](${secret})`);
  expect((await download(secret, cast.moderator)).status).toBe(404);
  expect((await download(secret, cast.member)).status).toBe(200);
});

test('types that a browser could run are sent as downloads', async () => {
  const { url } = (
    await upload(cast.member, {
      file: { name: 'page.html', content: '<script>alert(1)</script>', type: 'text/html' },
    })
  ).body;
  const res = await download(url, cast.member);
  expect(res.status).toBe(200);
  expect(res.type).toBe('application/octet-stream');
  expect(res.disposition).toMatch(/^attachment;/);
});

test('downloading needs credentials and another organization sees nothing', async () => {
  const { url } = (await upload(cast.member, { file: { name: 'mine.txt', content: 'mine' } })).body;
  const anonymous = await download(url);
  expect(anonymous.status).toBe(401);
  expect(JSON.parse(anonymous.text)).toEqual({
    result: 'error',
    msg: 'Not logged in: API authentication or user session required',
    code: 'UNAUTHORIZED',
  });
  const { owner } = await server.createRealm('Elsewhere', 'elsewhere');
  expect((await download(url, owner)).status).toBe(404);
  expect(
    (await download('/user_uploads/1/000000000000000000000000/missing.txt', cast.member)).status,
  ).toBe(404);
});

test('hostile file names are cleaned and stay inside the upload store', async () => {
  const root = server.services.config.uploadsDir;
  for (const name of [
    '../../etc/passwd',
    '..\\..\\windows\\win.ini',
    '..',
    '.hidden',
    'ré sumé (1).txt',
    '<script>.txt',
    '%2e%2e%2fx',
  ]) {
    const res = await upload(cast.member, { file: { name, content: 'x' } });
    expect(res.status).toBe(200);
    const pathId: string = res.body.url.replace('/user_uploads/', '');
    const [realm, random, file, ...rest] = pathId.split('/');
    expect([realm, rest]).toEqual([String(cast.realm.id), []]);
    expect(random).toMatch(/^[0-9a-f]{24}$/);
    expect(file).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/);
    const stored = resolve(root, pathId);
    expect(relative(root, stored).startsWith('..')).toBe(false);
    expect(existsSync(stored)).toBe(true);
  }
  const accents = await upload(cast.member, { file: { name: 'ré sumé (1).txt', content: 'x' } });
  expect(accents.body.url).toMatch(/\/re-sume-1\.txt$/);
  expect(accents.body.filename).toBe('ré sumé (1).txt');
});

test('download paths that climb out of the store are refused', async () => {
  for (const path of [
    '/user_uploads/../../etc/passwd',
    '/user_uploads/..%2f..%2f..%2fetc%2fpasswd',
    '/user_uploads/%2e%2e/%2e%2e/etc/passwd',
    `/user_uploads/${cast.realm.id}/../../../../etc/passwd`,
    '/user_uploads/%2fetc%2fpasswd',
    '/user_uploads/%zz',
  ]) {
    const res = await download(path, cast.member);
    expect([path, res.status]).toEqual([path, 404]);
    expect(res.text).not.toContain('root:');
  }
});

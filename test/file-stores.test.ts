// The file store's contract, held by both implementations: the upload folder
// and an S3-compatible object store (a local s3rver started here). Bytes read
// back identical, a replaced file reads as the new one, a deleted file is gone
// (from the disk or the bucket), and keys this server would never make are
// refused. Then a server whose uploads go to the object store: files, their
// temporary URLs, deletion and custom emoji all through it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../src/config';
import type { FileStore } from '../src/lib/uploads/file-store';
import { LocalFileStore } from '../src/lib/uploads/local-store';
import { openFileStore } from '../src/startup';
import { startLocalS3, type LocalS3 } from './support/s3';
import { TestServer, type Cast } from './support/server';

let s3: LocalS3;
let scratch: string;

beforeAll(async () => {
  s3 = await startLocalS3();
  scratch = mkdtempSync(join(tmpdir(), 'chat-file-stores-'));
});
afterAll(async () => {
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** A local file holding `content`. */
function localFile(content: Buffer): string {
  const path = join(scratch, randomBytes(6).toString('hex'));
  writeFileSync(path, content);
  return path;
}

/** Whether the bucket holds an object at `key`, asked of the object store directly. */
async function objectExists(key: string): Promise<boolean> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  try {
    await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
      return false;
    throw error;
  } finally {
    client.destroy();
  }
}

interface Subject {
  store: FileStore;
  /** Whether the store's backing holds `key`, looked at without the store. */
  holds(key: string): Promise<boolean>;
}

const subjects: [string, () => Subject | Promise<Subject>][] = [
  [
    'the upload folder',
    () => {
      const store = new LocalFileStore(join(scratch, 'folder'));
      return { store, holds: async (key) => existsSync(store.pathOf(key)!) };
    },
  ],
  [
    'the object store',
    async () => ({
      store: await openFileStore(loadConfig({ ...s3.env, S3_KEY_PREFIX: 'contract' })),
      holds: (key) => objectExists(`contract/${key}`),
    }),
  ],
];

describe.each(subjects)('%s', (_name, make) => {
  let subject: Subject;
  beforeAll(async () => {
    subject = await make();
  });
  afterAll(() => subject.store.close());

  test('stored bytes read back identical, with their size', async () => {
    const content = randomBytes(300_000);
    const key = `1/${randomBytes(12).toString('hex')}/data.bin`;
    await subject.store.put(key, localFile(content), 'application/octet-stream');
    expect(await subject.holds(key)).toBe(true);
    const file = await subject.store.get(key);
    expect(file?.size).toBe(content.length);
    expect((await bytesOf(file!.body)).equals(content)).toBe(true);
  });

  test('an empty file is stored and read as empty', async () => {
    const key = `1/${randomBytes(12).toString('hex')}/empty.txt`;
    await subject.store.put(key, localFile(Buffer.alloc(0)), 'text/plain');
    const file = await subject.store.get(key);
    expect(file?.size).toBe(0);
    expect((await bytesOf(file!.body)).length).toBe(0);
  });

  test('putting again under a key replaces the file', async () => {
    const key = `2/emoji/images/${randomBytes(8).toString('hex')}.png`;
    await subject.store.put(key, localFile(Buffer.from('first')), 'image/png');
    await subject.store.put(key, localFile(Buffer.from('second one')), 'image/png');
    expect((await bytesOf((await subject.store.get(key))!.body)).toString()).toBe('second one');
  });

  test('deletion removes the file; deleting it again is no error', async () => {
    const key = `3/${randomBytes(12).toString('hex')}/gone.txt`;
    await subject.store.put(key, localFile(Buffer.from('short-lived')), 'text/plain');
    await subject.store.delete(key);
    expect(await subject.holds(key)).toBe(false);
    expect(await subject.store.get(key)).toBeUndefined();
    await expect(subject.store.delete(key)).resolves.toBeUndefined();
  });

  test('a missing key reads as nothing', async () => {
    expect(await subject.store.get('9/000000000000000000000000/none.txt')).toBeUndefined();
  });

  test('keys this server never makes are refused', async () => {
    for (const key of ['../escape.txt', '1/../../x', '/abs/path', '1//x', '1/a b'])
      expect(await subject.store.get(key)).toBeUndefined();
    await expect(
      subject.store.put('../escape.txt', localFile(Buffer.from('x')), 'text/plain'),
    ).rejects.toThrow();
  });
});

describe('a server storing uploads in the object store', () => {
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    server = await TestServer.start({ ...s3.env, UPLOADS_DIR: join(scratch, 'unused') });
    cast = await server.createCast();
  });
  afterAll(() => server?.stop());

  async function download(path: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.url}${path}`, { headers });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  }
  const basic = (user: Cast['member']) => ({
    authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`,
  });

  test('an upload is an object, served identical, by temporary URL too, and deleted with its record', async () => {
    expect(server.services.files.kind).toBe('s3');
    const content = randomBytes(100_000);
    const res = await server.call('POST', '/user_uploads', {
      as: cast.member,
      encoding: 'multipart',
      files: { file: { name: 'blob.bin', content, type: 'application/octet-stream' } },
    });
    expect(res.status).toBe(200);
    const pathId = (res.body.url as string).replace('/user_uploads/', '');
    expect(await objectExists(pathId)).toBe(true);
    expect(existsSync(join(scratch, 'unused', pathId))).toBe(false);

    const served = await download(res.body.url, basic(cast.member));
    expect(served.status).toBe(200);
    expect(served.body.equals(content)).toBe(true);

    const temporary = await server.call('GET', res.body.url, { as: cast.member });
    expect(temporary.status).toBe(200);
    const anonymous = await download(temporary.body.url);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.equals(content)).toBe(true);

    const listed = await server.call('GET', '/attachments', { as: cast.member });
    const id = listed.body.attachments.find((a: { path_id: string }) => a.path_id === pathId).id;
    const removed = await server.call('DELETE', `/attachments/${id}`, { as: cast.member });
    expect(removed.status).toBe(200);
    expect(await objectExists(pathId)).toBe(false);
    expect((await download(res.body.url, basic(cast.member))).status).toBe(404);
    expect((await download(temporary.body.url)).status).toBe(400);
  });

  test('a custom emoji image is an object, served without credentials', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      randomBytes(64),
    ]);
    const res = await server.call('POST', '/realm/emoji/stored_remotely', {
      as: cast.member,
      encoding: 'multipart',
      files: { f: { name: 'e.png', content: png, type: 'image/png' } },
    });
    expect(res.status).toBe(200);
    const emoji = await server.call('GET', '/realm/emoji', { as: cast.member });
    const found = Object.values(
      emoji.body.emoji as Record<string, { name: string; source_url: string }>,
    ).find((e) => e.name === 'stored_remotely')!;
    const key = found.source_url.replace('/user_avatars/', '');
    expect(await objectExists(key)).toBe(true);
    const image = await download(found.source_url);
    expect(image.status).toBe(200);
    expect(image.body.equals(png)).toBe(true);
  });
});

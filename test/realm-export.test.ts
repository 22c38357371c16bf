// POST, GET and DELETE /export/realm and GET /export/realm/consents: an
// administrator's export runs in the background and lands in the file store,
// a public export leaves out private messages, administrators hear of each
// change through `realm_export` events, and members are refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { runningExports } from '../src/actions/export/realm-export';
import {
  eventsOf,
  expectError,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
} from './streams-fixtures';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
const work = mkdtempSync(join(tmpdir(), 'realm-export-'));

beforeAll(async () => {
  server = await TestServer.start({ UPLOADS_DIR: join(work, 'uploads') });
  cast = await server.createCast();
  await subscribe(server, cast.member, ['general']);
  await subscribe(server, cast.member, ['hideout'], { invite_only: true });
  await sendToChannel(server, cast.member, 'general', 'news', 'a public word');
  await sendToChannel(server, cast.member, 'hideout', 'plans', 'a private word');
  await sendDirect(server, cast.member, [cast.member2.id], 'a direct word');
});
afterAll(async () => {
  await Promise.all([...runningExports]);
  await server.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Waits for the background exports, then lists the exports. */
async function settledExports() {
  await Promise.all([...runningExports]);
  const res = await server.call('GET', '/export/realm', { as: cast.admin });
  expect(res.status).toBe(200);
  return res.body.exports as Record<string, any>[];
}

/** The lines of one table of an export archive at `url`. */
async function tableOf(url: string, model: string): Promise<Record<string, any>[]> {
  const res = await fetch(`${server.url}${new URL(url).pathname}`);
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  const dir = mkdtempSync(join(work, 'x-'));
  writeFileSync(join(dir, 'a.tar.gz'), bytes);
  await tar.x({ file: join(dir, 'a.tar.gz'), cwd: dir });
  return readFileSync(join(dir, 'tables', `${model}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

test('members may not export, list, delete or read consents', async () => {
  const refusal = [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator'] as const;
  expectError(await server.call('POST', '/export/realm', { as: cast.member }), ...refusal);
  expectError(await server.call('GET', '/export/realm', { as: cast.moderator }), ...refusal);
  expectError(await server.call('DELETE', '/export/realm/1', { as: cast.member }), ...refusal);
  expectError(await server.call('GET', '/export/realm/consents', { as: cast.member }), ...refusal);
});

test('a public export runs in the background, is downloadable, then deleted', async () => {
  const queue = await register(server, cast.admin, { event_types: ['realm_export'] });
  const memberQueue = await register(server, cast.member, { event_types: ['realm_export'] });
  const started = await server.call('POST', '/export/realm', { as: cast.admin });
  expect(started.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
  const id = started.body.id;

  const [done] = await settledExports();
  expect(done).toEqual({
    id,
    acting_user_id: cast.admin.id,
    export_time: expect.any(Number),
    deleted_timestamp: null,
    failed_timestamp: null,
    export_url: expect.stringMatching(
      new RegExp(`^http://chat\\.test/user_avatars/exports/${cast.realm.id}/[0-9a-f]{24}/`),
    ),
    pending: false,
    export_type: 1,
  });
  const events = await eventsOf(server, cast.admin, queue.queue_id);
  expect(events.map((e) => e.exports.map((x: { pending: boolean }) => x.pending))).toEqual([
    [true],
    [false],
  ]);
  expect(withoutIds(events)[1]).toEqual({ type: 'realm_export', exports: [done] });
  expect(await eventsOf(server, cast.member, memberQueue.queue_id)).toEqual([]);

  const contents = (await tableOf(done.export_url, 'Message')).map((m) => m.content);
  expect(contents).toContain('a public word');
  expect(contents).not.toContain('a private word');
  expect(contents).not.toContain('a direct word');

  expect((await server.call('DELETE', `/export/realm/${id}`, { as: cast.admin })).body).toEqual({
    result: 'success',
    msg: '',
  });
  const [deleted] = await settledExports();
  expect(deleted).toMatchObject({ id, deleted_timestamp: expect.any(Number), export_url: null });
  const gone = await fetch(`${server.url}${new URL(done.export_url).pathname}`);
  expect(gone.status).toBe(404);
  expectError(
    await server.call('DELETE', `/export/realm/${id}`, { as: cast.admin }),
    400,
    'BAD_REQUEST',
    'Export already deleted',
  );
  expectError(
    await server.call('DELETE', '/export/realm/9999', { as: cast.admin }),
    400,
    'BAD_REQUEST',
    'Invalid data export ID',
  );
});

test('a full export with consent holds the private messages of consenting users', async () => {
  const consents = async () =>
    (await server.call('GET', '/export/realm/consents', { as: cast.owner })).body.export_consents;
  expect(await consents()).toContainEqual({ user_id: cast.member.id, consented: false });
  expect(
    (
      await server.call('PATCH', '/settings', {
        as: cast.member,
        params: { allow_private_data_export: true },
      })
    ).status,
  ).toBe(200);
  expect(await consents()).toContainEqual({ user_id: cast.member.id, consented: true });

  const started = await server.call('POST', '/export/realm', {
    as: cast.owner,
    params: { export_type: 2 },
  });
  expect(started.status).toBe(200);
  const done = (await settledExports()).find((e) => e.id === started.body.id)!;
  expect(done).toMatchObject({ export_type: 2, pending: false, acting_user_id: cast.owner.id });
  const contents = (await tableOf(done.export_url, 'Message')).map((m) => m.content);
  expect(contents).toEqual(
    expect.arrayContaining(['a public word', 'a private word', 'a direct word']),
  );
});

test('an organization may export five times a week', async () => {
  for (let i = (await settledExports()).length; i < 5; i++)
    expect((await server.call('POST', '/export/realm', { as: cast.admin })).status).toBe(200);
  expectError(
    await server.call('POST', '/export/realm', { as: cast.admin }),
    400,
    'BAD_REQUEST',
    'Exceeded rate limit.',
  );
  await settledExports();
});

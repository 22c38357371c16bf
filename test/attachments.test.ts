// DELETE /attachments/{attachment_id} and the attachment events: add on
// upload, update when messages linking to a file are sent, edited or deleted,
// remove on deletion; applied to GET /attachments they give what a fresh
// GET /attachments returns.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents, type State } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['files'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

async function upload(as: User, name: string, content: string): Promise<string> {
  const res = await server.call('POST', '/user_uploads', {
    as,
    encoding: 'multipart',
    files: { file: { name, content } },
  });
  expect(res.status).toBe(200);
  return res.body.url;
}

async function attachmentsOf(as: User): Promise<State> {
  const res = await server.call('GET', '/attachments', { as });
  expect(res.status).toBe(200);
  const { result: _result, msg: _msg, ...state } = res.body;
  return state;
}

function removeAttachment(as: User, id: number) {
  return server.call('DELETE', `/attachments/${id}`, { as });
}

test('uploading, linking, editing and deleting messages send attachment events that keep the list right', async () => {
  const q = await register(server, cast.member, { event_types: ['attachment'] });
  const state = await attachmentsOf(cast.member);
  const url = await upload(cast.member, 'plan.txt', 'the plan');
  const pathId = url.replace('/user_uploads/', '');

  const added = await eventsOf(server, cast.member, q.queue_id);
  expect(withoutIds(added)).toEqual([
    {
      type: 'attachment',
      op: 'add',
      attachment: {
        id: expect.any(Number),
        name: 'plan.txt',
        path_id: pathId,
        size: 8,
        create_time: expect.any(Number),
        messages: [],
      },
      upload_space_used: (await attachmentsOf(cast.member)).upload_space_used,
    },
  ]);
  const attachmentId = added[0].attachment.id;

  const messageId = await sendToChannel(server, cast.member, 'files', 'plans', `[plan](${url})`);
  const edited = await server.call('PATCH', `/messages/${messageId}`, {
    as: cast.member,
    params: { content: 'no link any more' },
  });
  expect(edited.body.detached_uploads).toEqual([
    expect.objectContaining({ id: attachmentId, messages: [] }),
  ]);
  const second = await sendToChannel(server, cast.member, 'files', 'plans', `[again](${url})`);
  expect((await server.call('DELETE', `/messages/${second}`, { as: cast.member })).status).toBe(
    200,
  );

  const events = await eventsOf(server, cast.member, q.queue_id);
  // The add event first, then the updates.
  const updates = withoutIds(events).slice(1);
  expect(
    updates.map((e) => [e.op, e.attachment.id, e.attachment.messages.map((m: any) => m.id)]),
  ).toEqual([
    ['update', attachmentId, [messageId]],
    ['update', attachmentId, []],
    ['update', attachmentId, [second]],
    ['update', attachmentId, []],
  ]);
  // Nobody else hears of it.
  const other = await register(server, cast.member2, { event_types: ['attachment'] });
  await sendToChannel(server, cast.member, 'files', 'plans', `[once more](${url})`);
  expect(await eventsOf(server, cast.member2, other.queue_id)).toEqual([]);

  const allEvents = await eventsOf(server, cast.member, q.queue_id);
  expect(applyEvents(state, allEvents)).toEqual(await attachmentsOf(cast.member));
});

test('deleting an upload removes the file and sends a remove event; others may not', async () => {
  const url = await upload(cast.member, 'old.txt', 'outdated');
  const pathId = url.replace('/user_uploads/', '');
  const stored = resolve(server.services.config.uploadsDir, pathId);
  await sendToChannel(server, cast.member, 'files', 'old', `[old](${url})`);
  const before = await attachmentsOf(cast.member);
  const id = before.attachments.find((a: { path_id: string }) => a.path_id === pathId).id;

  expectError(await removeAttachment(cast.member2, id), 400, 'BAD_REQUEST', 'Invalid attachment');
  expectError(await removeAttachment(cast.admin, id), 400, 'BAD_REQUEST', 'Invalid attachment');
  expectError(
    await removeAttachment(cast.member, 99999999),
    400,
    'BAD_REQUEST',
    'Invalid attachment',
  );
  expect(existsSync(stored)).toBe(true);

  const q = await register(server, cast.member, { event_types: ['attachment'] });
  const res = await removeAttachment(cast.member, id);
  expect(res.body).toEqual({ result: 'success', msg: '' });
  const after = await attachmentsOf(cast.member);
  expect(after.upload_space_used).toBe(before.upload_space_used - 8);
  const events = await eventsOf(server, cast.member, q.queue_id);
  expect(withoutIds(events)).toEqual([
    {
      type: 'attachment',
      op: 'remove',
      attachment: { id },
      upload_space_used: after.upload_space_used,
    },
  ]);
  expect(applyEvents(before, events)).toEqual(after);
  expect(existsSync(stored)).toBe(false);
  const download = await fetch(`${server.url}${url}`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${cast.member.email}:${cast.member.apiKey}`).toString('base64')}`,
    },
  });
  expect(download.status).toBe(404);
  expectError(await removeAttachment(cast.member, id), 400, 'BAD_REQUEST', 'Invalid attachment');
});

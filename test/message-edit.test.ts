// PATCH /messages/{id} content edits: the success shape, the stored edit,
// the update_message event applied to a client's view, and every refusal of
// the content path with its exact code and message.
import { createHash } from 'node:crypto';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['edits'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

function edit(as: Cast['member'], id: number, params: Record<string, unknown>) {
  return server.call('PATCH', `/messages/${id}`, { as, params });
}

async function fetchOne(as: Cast['member'], id: number) {
  return (await server.call('GET', `/messages/${id}`, { as })).body;
}

async function backdate(id: number, seconds: number) {
  await server.services.db.write((tx) =>
    tx.message.update({ where: { id }, data: { dateSent: new Date(Date.now() - seconds * 1000) } }),
  );
}

async function setRealm(data: Record<string, unknown>) {
  await server.services.db.write((tx) => tx.realm.update({ where: { id: cast.realm.id }, data }));
  server.services.auth.forgetRealm(cast.realm.id);
}

test('the sender edits the content; the message, its event and its history follow', async () => {
  const id = await sendToChannel(server, cast.member, 'edits', 'topic a', 'first *draft*');
  const q = await register(server, cast.member2, { event_types: ['update_message'] });
  const res = await edit(cast.member, id, { content: 'second **draft** @**Cordelia Lear**' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ result: 'success', msg: '', detached_uploads: [] });
  const body = await fetchOne(cast.member2, id);
  expect(body.raw_content).toBe('second **draft** @**Cordelia Lear**');
  expect(body.message.content).toContain('<strong>draft</strong>');
  expect(body.message.flags).toEqual(['mentioned']);
  expect(body.message.last_edit_timestamp).toEqual(expect.any(Number));
  const events = await eventsOf(server, cast.member2, q.queue_id);
  expect(withoutIds(events)).toEqual([
    {
      type: 'update_message',
      user_id: cast.member.id,
      edit_timestamp: expect.any(Number),
      message_id: id,
      message_ids: [id],
      rendering_only: false,
      stream_id: expect.any(Number),
      stream_name: 'edits',
      flags: ['mentioned'],
      orig_content: 'first *draft*',
      orig_rendered_content: '<p>first <em>draft</em></p>',
      content: 'second **draft** @**Cordelia Lear**',
      rendered_content: body.message.content,
      is_me_message: false,
    },
  ]);
});

test('blank content becomes "(deleted)"; a direct message can be edited too', async () => {
  const id = await sendDirect(server, cast.member, [cast.member2.id], 'a secret');
  expect((await edit(cast.member, id, { content: '   ' })).status).toBe(200);
  expect((await fetchOne(cast.member, id)).raw_content).toBe('(deleted)');
});

test('only the sender may edit content, administrators included', async () => {
  const id = await sendToChannel(server, cast.member, 'edits', 'topic b', 'mine');
  expectError(
    await edit(cast.owner, id, { content: 'theirs' }),
    400,
    'BAD_REQUEST',
    "You don't have permission to edit this message",
  );
  expectError(
    await edit(cast.member2, id, { content: 'theirs' }),
    400,
    'BAD_REQUEST',
    "You don't have permission to edit this message",
  );
  expect((await fetchOne(cast.member, id)).raw_content).toBe('mine');
});

test('the edit window: limit plus 20 seconds of grace; null means none', async () => {
  const id = await sendToChannel(server, cast.member, 'edits', 'topic c', 'old');
  await backdate(id, 600 + 10);
  expect((await edit(cast.member, id, { content: 'within grace' })).status).toBe(200);
  await backdate(id, 600 + 30);
  expectError(
    await edit(cast.member, id, { content: 'too late' }),
    400,
    'BAD_REQUEST',
    'The time limit for editing this message has passed',
  );
  await setRealm({ messageContentEditLimitSeconds: null });
  expect((await edit(cast.member, id, { content: 'no limit' })).status).toBe(200);
  await setRealm({ messageContentEditLimitSeconds: 600 });
});

test('editing can be turned off for the organization', async () => {
  const id = await sendToChannel(server, cast.member, 'edits', 'topic d', 'fixed');
  await setRealm({ allowMessageEditing: false });
  expectError(
    await edit(cast.member, id, { content: 'changed' }),
    400,
    'BAD_REQUEST',
    'Your organization has turned off message editing',
  );
  await setRealm({ allowMessageEditing: true });
});

test('payload errors, in order', async () => {
  const id = await sendToChannel(server, cast.member, 'edits', 'topic e', 'payload');
  const dm = await sendDirect(server, cast.member, [cast.member2.id], 'direct');
  expectError(await edit(cast.member, id, {}), 400, 'BAD_REQUEST', 'Nothing to change');
  expectError(
    await edit(cast.member, id, { topic: 'topic e' }),
    400,
    'BAD_REQUEST',
    'Nothing to change',
  );
  expectError(
    await edit(cast.member, dm, { topic: 'x' }),
    400,
    'BAD_REQUEST',
    'Direct messages cannot have topics.',
  );
  expectError(
    await edit(cast.member, id, { content: 'x', propagate_mode: 'change_all' }),
    400,
    'BAD_REQUEST',
    'Invalid propagate_mode without topic edit',
  );
  expectError(
    await edit(cast.member, id, { content: 'x', stream_id: 999999 }),
    400,
    'BAD_REQUEST',
    'Cannot change message content while changing channel',
  );
  expectError(
    await edit(cast.member, id, { topic: 'a', subject: 'b' }),
    400,
    'REQUEST_CONFUSING_VAR',
    "Can't decide between 'topic' and 'subject' arguments",
    { var_name1: 'topic', var_name2: 'subject' },
  );
  expectError(
    await edit(cast.member, 999999, { content: 'x' }),
    400,
    'BAD_REQUEST',
    'Invalid message(s)',
  );
  expectError(
    await edit(cast.moderator, dm, { content: 'x' }),
    400,
    'BAD_REQUEST',
    'Invalid message(s)',
  );
});

test('prev_content_sha256 guards against races, even for moves', async () => {
  const id = await sendToChannel(server, cast.member, 'edits', 'topic f', 'version one');
  const good = createHash('sha256').update('version one').digest('hex');
  expectError(
    await edit(cast.member, id, { content: 'v2', prev_content_sha256: 'abc' }),
    400,
    'EXPECTATION_MISMATCH',
    'Message was edited by another client.',
  );
  expectError(
    await edit(cast.member, id, { topic: 'moved', prev_content_sha256: 'abc' }),
    400,
    'EXPECTATION_MISMATCH',
    'Message was edited by another client.',
  );
  expect((await edit(cast.member, id, { content: 'v2', prev_content_sha256: good })).status).toBe(
    200,
  );
});

test('wildcard mentions in a large channel need can_mention_many_users_group', async () => {
  const crowd = [];
  for (let i = 0; i < 16; i++)
    crowd.push((await server.createUser(cast.realm, { email: `crowd${i}@example.com` })).id);
  await subscribe(server, cast.member, ['crowded'], { principals: [cast.member.id, ...crowd] });
  const id = await sendToChannel(server, cast.member, 'crowded', 'big', 'hello');
  const nobody = await server.services.db.read((db) =>
    db.userGroup.findFirstOrThrow({
      where: { realmId: cast.realm.id, name: 'role:nobody', isSystemGroup: true },
    }),
  );
  const members = await server.services.db.read((db) =>
    db.userGroup.findFirstOrThrow({
      where: { realmId: cast.realm.id, name: 'role:members', isSystemGroup: true },
    }),
  );
  await setRealm({ canMentionManyUsersGroupId: nobody.id });
  expectError(
    await edit(cast.member, id, { content: 'hi @**all**' }),
    400,
    'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
    'You do not have permission to use channel wildcard mentions in this channel.',
  );
  await setRealm({ canMentionManyUsersGroupId: members.id });
  expect((await edit(cast.member, id, { content: 'hi @**all**' })).status).toBe(200);
});

test("detached_uploads lists the sender's files the edit left unreferenced", async () => {
  const made = async (pathId: string) =>
    server.services.db.write((tx) =>
      tx.attachment.create({
        data: {
          realmId: cast.realm.id,
          ownerId: cast.member.id,
          fileName: 'notes.txt',
          pathId,
          size: 12,
        },
      }),
    );
  const lone = await made(`${cast.realm.id}/aa/notes.txt`);
  const shared = await made(`${cast.realm.id}/bb/notes.txt`);
  const link = (a: { pathId: string }) => `[notes](/user_uploads/${a.pathId})`;
  const id = await sendToChannel(
    server,
    cast.member,
    'edits',
    'files',
    `${link(lone)} ${link(shared)}`,
  );
  await sendToChannel(server, cast.member, 'edits', 'files', `again ${link(shared)}`);
  const res = await edit(cast.member, id, { content: 'no files now' });
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    detached_uploads: [
      {
        id: lone.id,
        name: 'notes.txt',
        path_id: lone.pathId,
        size: 12,
        create_time: lone.createTime.getTime(),
        messages: [],
      },
    ],
  });
  const back = await edit(cast.member, id, { content: `back: ${link(lone)}` });
  expect(back.body.detached_uploads).toEqual([]);
  const links = await server.services.db.read((db) =>
    db.attachmentMessage.findMany({ where: { messageId: id } }),
  );
  expect(links.map((l) => l.attachmentId)).toEqual([lone.id]);
});

// How parameters travel: JSON request bodies with native values, lists sent as
// repeated names (in forms and query strings), scalars that arrive twice,
// literal bracket names, and where the body wins over the query string.
import type { User } from '../generated/prisma/sqlite/client';
import { subscribe } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.admin, ['wire']);
});
afterAll(() => server.stop());

/** The newest message `user` received, read through GET /messages. */
async function newestOf(user: User) {
  const res = await server.call('GET', '/messages', {
    as: user,
    params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] },
  });
  expect(res.status).toBe(200);
  return res.body.messages[0];
}

/** Asserts that every user in `recipients` has `content` as their newest message, sent by `sender`. */
async function expectReceived(sender: User, recipients: User[], content: string) {
  for (const user of recipients) {
    const message = await newestOf(user);
    expect({ user: user.email, content: message?.content, sender: message?.sender_id }).toEqual({
      user: user.email,
      content: `<p>${content}</p>`,
      sender: sender.id,
    });
  }
}

const urlencoded = { 'content-type': 'application/x-www-form-urlencoded' };

describe('JSON request bodies', () => {
  test('carry lists natively: a direct message to two users reaches both', async () => {
    const res = await server.call('POST', '/messages', {
      as: cast.admin,
      encoding: 'json',
      params: { type: 'direct', to: [cast.member.id, cast.member2.id], content: 'json to two' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
    await expectReceived(cast.admin, [cast.member, cast.member2, cast.admin], 'json to two');
  });

  test('carry booleans, integers, null and objects natively', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      encoding: 'json',
      params: { enter_sends: true, email_address_visibility: 4, timezone: 'Europe/Paris' },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const settings = await server.call('POST', '/register', {
      as: cast.member,
      encoding: 'json',
      params: { fetch_event_types: ['user_settings'], event_types: [] },
    });
    expect(settings.body.user_settings).toMatchObject({
      enter_sends: true,
      email_address_visibility: 4,
      timezone: 'Europe/Paris',
    });

    const editLimit = async (value: number | null) => {
      const res = await server.call('PATCH', '/realm', {
        as: cast.owner,
        encoding: 'json',
        params: { message_content_edit_limit_seconds: value },
      });
      expect(res.body).toEqual({ result: 'success', msg: '' });
      const realm = await server.call('POST', '/register', {
        as: cast.owner,
        encoding: 'json',
        params: { fetch_event_types: ['realm'], event_types: [] },
      });
      return realm.body.realm_message_content_edit_limit_seconds;
    };
    expect(await editLimit(1200)).toBe(1200);
    expect(await editLimit(null)).toBeNull();

    const group = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      encoding: 'json',
      params: { name: 'json group', description: 'd', members: [cast.member.id] },
    });
    expect(group.status).toBe(200);
    const change = await server.call('PATCH', `/user_groups/${group.body.group_id}`, {
      as: cast.admin,
      encoding: 'json',
      params: {
        can_mention_group: { new: { direct_members: [cast.member2.id], direct_subgroups: [] } },
      },
    });
    expect(change.body).toEqual({ result: 'success', msg: '' });
    const groups = await server.call('GET', '/user_groups', { as: cast.admin });
    const found = groups.body.user_groups.find((g: { id: number }) => g.id === group.body.group_id);
    expect(found.can_mention_group).toEqual({
      direct_members: [cast.member2.id],
      direct_subgroups: [],
    });
  });

  test('are read by operations without credentials and by DELETE', async () => {
    const key = await server.call('POST', '/fetch_api_key', {
      encoding: 'json',
      params: { username: cast.member.email, password: 'password' },
    });
    expect(key.body).toEqual({
      result: 'success',
      msg: '',
      api_key: cast.member.apiKey,
      email: cast.member.email,
      user_id: cast.member.id,
    });
    const reg = await server.call('POST', '/register', {
      as: cast.member,
      encoding: 'json',
      params: { event_types: ['message'] },
    });
    const del = await server.call('DELETE', '/events', {
      as: cast.member,
      encoding: 'json',
      params: { queue_id: reg.body.queue_id },
    });
    expect(del.body).toEqual({ result: 'success', msg: '' });
  });

  test('refuse values of the wrong type with the same messages as forms, and list unknown fields', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ enter_sends: 'true' }, 'enter_sends is not a boolean'],
      [{ email_address_visibility: '4' }, 'email_address_visibility is not an integer'],
      [{ timezone: 5 }, 'timezone is not a string'],
    ];
    for (const [params, msg] of cases) {
      const res = await server.call('PATCH', '/settings', {
        as: cast.member,
        encoding: 'json',
        params,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    }
    const list = await server.call('POST', '/register', {
      as: cast.member,
      encoding: 'json',
      params: { event_types: '["message"]' },
    });
    expect(list.body).toEqual({
      result: 'error',
      msg: 'event_types is not a list',
      code: 'BAD_REQUEST',
    });
    const extra = await server.call('PATCH', '/settings', {
      as: cast.member,
      encoding: 'json',
      params: { enter_sends: false, 'a[b]': 1, zebra: { x: 1 } },
    });
    expect(extra.body).toEqual({
      result: 'success',
      msg: '',
      ignored_parameters_unsupported: ['a[b]', 'zebra'],
    });
  });

  test('win over the query string, as form bodies do', async () => {
    const res = await server.send('PATCH', '/settings?timezone=Asia/Tokyo', {
      as: cast.member2,
      encoding: 'json',
      params: { timezone: 'America/Lima' },
    });
    expect(res.status).toBe(200);
    const settings = await server.call('POST', '/register', {
      as: cast.member2,
      params: { fetch_event_types: ['user_settings'], event_types: [] },
    });
    expect(settings.body.user_settings.timezone).toBe('America/Lima');
  });
});

describe('a list sent as a repeated name', () => {
  test('in a urlencoded body is that list: both recipients get the message', async () => {
    const body = `type=direct&to=${cast.member.id}&to=${cast.member2.id}&content=repeated+form`;
    const res = await server.call('POST', '/messages', {
      as: cast.admin,
      body,
      headers: urlencoded,
    });
    expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
    await expectReceived(cast.admin, [cast.member, cast.member2], 'repeated form');
  });

  test('in a multipart body is that list', async () => {
    const form = new FormData();
    for (const [name, value] of [
      ['type', 'direct'],
      ['to', String(cast.member.id)],
      ['to', String(cast.member2.id)],
      ['content', 'repeated multipart'],
    ])
      form.append(name, value);
    const encoded = new Request('http://encoder.invalid', { method: 'POST', body: form });
    const res = await server.call('POST', '/messages', {
      as: cast.admin,
      body: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')! },
    });
    expect(res.status).toBe(200);
    await expectReceived(cast.admin, [cast.member, cast.member2], 'repeated multipart');
  });

  test('of email addresses is that list', async () => {
    const body = `type=private&to=${encodeURIComponent(cast.member.email)}&to=${encodeURIComponent(cast.moderator.email)}&content=by+address`;
    const res = await server.call('POST', '/messages', {
      as: cast.admin,
      body,
      headers: urlencoded,
    });
    expect(res.status).toBe(200);
    await expectReceived(cast.admin, [cast.member, cast.moderator], 'by address');
  });

  test('in the query string is that list, and a lone value is a list of one', async () => {
    const first = await server.call('POST', '/messages', {
      as: cast.admin,
      params: { type: 'stream', to: 'wire', topic: 't', content: 'one' },
    });
    const second = await server.call('POST', '/messages', {
      as: cast.admin,
      params: { type: 'stream', to: 'wire', topic: 't', content: 'two' },
    });
    const ids = (res: { body: { messages: { id: number }[] } }) =>
      res.body.messages.map((m) => m.id);
    const both = await server.call(
      'GET',
      `/messages?message_ids=${first.body.id}&message_ids=${second.body.id}`,
      { as: cast.admin },
    );
    expect(ids(both)).toEqual([first.body.id, second.body.id]);
    const lone = await server.call('GET', `/messages?message_ids=${second.body.id}`, {
      as: cast.admin,
    });
    expect(ids(lone)).toEqual([second.body.id]);
    const json = await server.call('GET', '/messages', {
      as: cast.admin,
      params: { message_ids: [first.body.id] },
    });
    expect(ids(json)).toEqual([first.body.id]);
    const match = await server.call(
      'GET',
      `/messages/matches_narrow?msg_ids=${first.body.id}&msg_ids=${second.body.id}&narrow=${encodeURIComponent('[{"operator":"search","operand":"two"}]')}`,
      { as: cast.admin },
    );
    expect(Object.keys(match.body.messages)).toEqual([String(second.body.id)]);
  });

  test('of channel names leaves those channels, and a lone name is a list of one', async () => {
    await subscribe(server, cast.member, ['wire a', 'wire b', 'wire c']);
    const two = await server.call(
      'DELETE',
      '/users/me/subscriptions?subscriptions=wire+a&subscriptions=wire+b',
      { as: cast.member },
    );
    expect(two.body).toEqual({
      result: 'success',
      msg: '',
      removed: ['wire a', 'wire b'],
      not_removed: [],
    });
    const one = await server.call('DELETE', '/users/me/subscriptions?subscriptions=wire+c', {
      as: cast.member,
    });
    expect(one.body).toEqual({ result: 'success', msg: '', removed: ['wire c'], not_removed: [] });
  });
});

describe('names', () => {
  test('of a parameter that takes one value, repeated, get a 400 naming it', async () => {
    const body = await server.call('POST', '/messages', {
      as: cast.admin,
      body: `type=direct&to=${cast.member.id}&content=a&content=b`,
      headers: urlencoded,
    });
    expect(body.status).toBe(400);
    expect(body.body).toEqual({
      result: 'error',
      msg: 'content was sent more than once',
      code: 'BAD_REQUEST',
    });
    const query = await server.call('GET', '/messages?anchor=newest&anchor=oldest&narrow=[]', {
      as: cast.admin,
    });
    expect(query.body).toEqual({
      result: 'error',
      msg: 'anchor was sent more than once',
      code: 'BAD_REQUEST',
    });
    const flag = await server.call('PATCH', '/settings?enter_sends=true&enter_sends=false', {
      as: cast.member,
    });
    expect(flag.body).toEqual({
      result: 'error',
      msg: 'enter_sends was sent more than once',
      code: 'BAD_REQUEST',
    });
  });

  test('with brackets are literal names, never nested objects', async () => {
    const res = await server.call('POST', '/messages', {
      as: cast.admin,
      body: `type=direct&to[]=${cast.member.id}&to[]=${cast.member2.id}&content=x`,
      headers: urlencoded,
    });
    expect(res.body).toEqual({
      result: 'error',
      msg: "Missing 'to' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'to',
    });
    const nested = await server.call('PATCH', '/settings', {
      as: cast.member,
      body: 'enter_sends=true&a%5Bb%5D=c&x[y][z]=1',
      headers: urlencoded,
    });
    expect(nested.body).toEqual({
      result: 'success',
      msg: '',
      ignored_parameters_unsupported: ['a[b]', 'x[y][z]'],
    });
  });

  test('of uploaded files: a field holding two files is refused, and files an operation does not take are listed as ignored', async () => {
    const form = new FormData();
    form.append('file', new Blob(['one']), 'one.txt');
    form.append('file', new Blob(['two']), 'two.txt');
    const encoded = new Request('http://encoder.invalid', { method: 'POST', body: form });
    const two = await server.call('POST', '/user_uploads', {
      as: cast.member,
      body: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')! },
    });
    expect(two.body).toEqual({
      result: 'error',
      msg: 'file was sent more than once',
      code: 'BAD_REQUEST',
    });
    const stray = await server.call('PATCH', '/settings', {
      as: cast.member,
      encoding: 'multipart',
      params: { enter_sends: true },
      files: { attachment: { name: 'a.txt', content: 'a' } },
    });
    expect(stray.body).toEqual({
      result: 'success',
      msg: '',
      ignored_parameters_unsupported: ['attachment'],
    });
  });

  test('in a form body win over the same name in the query string', async () => {
    const res = await server.call('POST', `/messages?content=lost`, {
      as: cast.admin,
      params: { type: 'direct', to: [cast.member.id], content: 'kept' },
    });
    expect(res.status).toBe(200);
    await expectReceived(cast.admin, [cast.member], 'kept');
  });
});

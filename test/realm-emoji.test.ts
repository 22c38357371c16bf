// GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}: adding custom
// emoji, Zulip's name rules and refusals, the permission, serving the image
// without credentials, deactivating (who may, what stays, what is refused
// afterwards), and the realm_emoji event applied to the /register state.
import { request as httpRequest } from 'node:http';
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('rest of a tiny png'),
]);
const GIF = Buffer.from('GIF89a and some frames');

function add(
  as: User,
  name: string,
  files: Record<string, { name: string; content: string | Buffer; type?: string }> = {
    f: { name: 'e.png', content: PNG, type: 'image/png' },
  },
) {
  return server.call('POST', `/realm/emoji/${encodeURIComponent(name)}`, {
    as,
    encoding: 'multipart',
    files,
  });
}

async function emojiMap(as: User = cast.member) {
  const res = await server.call('GET', '/realm/emoji', { as });
  expect(res.status).toBe(200);
  return res.body.emoji as Record<
    string,
    {
      id: string;
      name: string;
      source_url: string;
      still_url: null;
      deactivated: boolean;
      author_id: number;
    }
  >;
}

function fetchRaw(path: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = httpRequest(`${server.url}/`, { method: 'GET', path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

const error = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

test('a member adds an emoji; it is listed and its image is served without credentials', async () => {
  const res = await add(cast.member, 'party parrot');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ result: 'success', msg: '' });
  const found = Object.values(await emojiMap()).find((e) => e.name === 'party_parrot')!;
  expect(found).toEqual({
    id: expect.any(String),
    name: 'party_parrot',
    source_url: expect.any(String),
    still_url: null,
    deactivated: false,
    author_id: cast.member.id,
  });
  for (const [key, value] of Object.entries(await emojiMap())) expect(key).toBe(value.id);
  expect(found.source_url).toMatch(
    new RegExp(`^/user_avatars/${cast.realm.id}/emoji/images/[0-9a-f]+\\.png$`),
  );
  const image = await fetchRaw(found.source_url);
  expect(image.status).toBe(200);
  expect(image.type).toBe('image/png');
  expect(image.body.equals(PNG)).toBe(true);
  expect((await fetchRaw(`/user_avatars/${cast.realm.id}/emoji/images/0123abcd.png`)).status).toBe(
    404,
  );
});

test('the emoji renders in messages by name', async () => {
  await add(cast.member, 'blob');
  const res = await server.call('POST', '/messages', {
    as: cast.member,
    params: { type: 'direct', to: [cast.member2.id], content: 'hi :blob:' },
  });
  const message = await server.call('GET', `/messages/${res.body.id}`, { as: cast.member });
  expect(message.body.message.content).toContain(`/user_avatars/${cast.realm.id}/emoji/images/`);
});

test("names follow Zulip's rules", async () => {
  expect((await add(cast.member, 'Big')).body).toEqual(
    error(
      'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.',
    ),
  );
  expect((await add(cast.member, 'wave!')).body).toEqual(
    error(
      'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.',
    ),
  );
  expect((await add(cast.member, 'trailing_')).body).toEqual(
    error('Emoji names must end with either a letter or digit.'),
  );
  expect((await add(cast.member, '   ')).body).toEqual(error('Emoji name is missing'));
  expect((await add(cast.member, 'ok-name_2')).status).toBe(200);
});

test('a taken name, a missing or extra file, a built-in name and a bad image are refused', async () => {
  await add(cast.member, 'unique');
  const again = await add(cast.member2, 'unique');
  expect(again.status).toBe(400);
  expect(again.body).toEqual(error('A custom emoji with this name already exists.'));
  expect((await add(cast.member, 'nofile', {})).body).toEqual(
    error('You must upload exactly one file.'),
  );
  expect(
    (
      await add(cast.member, 'twofiles', {
        a: { name: 'a.png', content: PNG, type: 'image/png' },
        b: { name: 'b.png', content: PNG, type: 'image/png' },
      })
    ).body,
  ).toEqual(error('You must upload exactly one file.'));
  expect((await add(cast.member, 'smile')).body).toEqual(
    error('Only administrators can override built-in emoji.'),
  );
  expect((await add(cast.admin, 'smile')).status).toBe(200);
  expect(
    (await add(cast.member, 'text', { f: { name: 'a.txt', content: 'hello', type: 'text/plain' } }))
      .body,
  ).toEqual(error('Invalid image format'));
  expect(
    (
      await add(cast.member, 'fake', {
        f: { name: 'a.png', content: 'not a png', type: 'image/png' },
      })
    ).body,
  ).toEqual(error('Could not decode image; did you upload an image file?'));
  const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
  expect(
    (await add(cast.member, 'huge', { f: { name: 'a.png', content: big, type: 'image/png' } }))
      .body,
  ).toEqual(error('Uploaded file is larger than the allowed limit of 5 MiB'));
  const names = Object.values(await emojiMap()).map((e) => e.name);
  for (const refused of ['nofile', 'twofiles', 'text', 'fake', 'huge'])
    expect(names).not.toContain(refused);
});

test('guests, and members outside can_add_custom_emoji_group, may not add emoji', async () => {
  expect((await add(cast.guest, 'guesty')).body).toEqual(error('Not allowed for guest users'));
  const groups = (await server.call('GET', '/user_groups', { as: cast.owner })).body.user_groups;
  const admins = groups.find((g: { name: string }) => g.name === 'role:administrators').id;
  const members = groups.find((g: { name: string }) => g.name === 'role:members').id;
  await server.ok('PATCH', '/realm', {
    as: cast.owner,
    params: { can_add_custom_emoji_group: { new: admins } },
  });
  try {
    expect((await add(cast.member, 'notallowed')).body).toEqual(error('Insufficient permission'));
    expect(
      (await add(cast.admin, 'allowed', { f: { name: 'a.gif', content: GIF, type: 'image/gif' } }))
        .status,
    ).toBe(200);
  } finally {
    await server.ok('PATCH', '/realm', {
      as: cast.owner,
      params: { can_add_custom_emoji_group: { new: members } },
    });
  }
  const allowed = Object.values(await emojiMap()).find((e) => e.name === 'allowed')!;
  expect(allowed.source_url).toMatch(/\.gif$/);
  expect((await fetchRaw(allowed.source_url)).type).toBe('image/gif');
});

test('the realm_emoji event carries the whole map, and applied to /register it gives a fresh /register', async () => {
  const user = cast.member2;
  const state = (
    await server.ok('POST', '/register', {
      as: user,
      params: { event_types: ['realm_emoji'], fetch_event_types: ['realm_emoji'] },
    })
  ).body;
  expect(state.realm_emoji).toEqual(await emojiMap(user));
  await add(cast.member, 'evented');
  const { body } = await server.call('GET', '/events', {
    as: user,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  expect(withoutIds(body.events)).toEqual([
    { type: 'realm_emoji', op: 'update', realm_emoji: expect.any(Object) },
  ]);
  const event = body.events[0];
  expect(Object.values(event.realm_emoji).map((e: any) => e.name)).toContain('evented');
  applyEvents(state, [event]);
  const fresh = (
    await server.ok('POST', '/register', {
      as: user,
      params: { fetch_event_types: ['realm_emoji'], event_types: [] },
    })
  ).body;
  expect(state.realm_emoji).toEqual(fresh.realm_emoji);
});

describe('DELETE /realm/emoji/{emoji_name}', () => {
  const remove = (as: User, name: string) =>
    server.call('DELETE', `/realm/emoji/${encodeURIComponent(name)}`, { as });
  const byName = async (name: string) =>
    Object.values(await emojiMap()).filter((e) => e.name === name);

  test('the author deactivates their emoji: listed as deactivated, event to everyone, state applied', async () => {
    await add(cast.member, 'retiring');
    const [before] = await byName('retiring');
    const channel = (
      await server.call('POST', '/users/me/subscriptions', {
        as: cast.member,
        params: { subscriptions: [{ name: 'emoji talk' }], principals: [cast.member2.id] },
      })
    ).status;
    expect(channel).toBe(200);
    const sent = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'stream', to: 'emoji talk', topic: 't', content: 'react' },
    });
    await server.ok('POST', `/messages/${sent.body.id}/reactions`, {
      as: cast.member2,
      params: { emoji_name: 'retiring' },
    });
    const state = (
      await server.ok('POST', '/register', {
        as: cast.member2,
        params: { event_types: ['realm_emoji'], fetch_event_types: ['realm_emoji'] },
      })
    ).body;

    const res = await remove(cast.member, 'retiring');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await byName('retiring')).toEqual([{ ...before, deactivated: true }]);
    // The image stays served, for the reactions and statuses that show it.
    expect((await fetchRaw(before.source_url)).status).toBe(200);

    const { body } = await server.call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(withoutIds(body.events)).toEqual([
      { type: 'realm_emoji', op: 'update', realm_emoji: await emojiMap() },
    ]);
    applyEvents(state, body.events);
    const fresh = (
      await server.ok('POST', '/register', {
        as: cast.member2,
        params: { fetch_event_types: ['realm_emoji'], event_types: [] },
      })
    ).body;
    expect(state.realm_emoji).toEqual(fresh.realm_emoji);
    expect(state.realm_emoji[before.id].deactivated).toBe(true);

    // The reaction made before stays, and others may still vote for it; new
    // uses are refused.
    const message = await server.call('GET', `/messages/${sent.body.id}`, { as: cast.member });
    const reaction = {
      emoji_name: 'retiring',
      emoji_code: before.id,
      reaction_type: 'realm_emoji',
    };
    expect(message.body.message.reactions).toEqual([{ ...reaction, user_id: cast.member2.id }]);
    const react = (id: number, params: Record<string, unknown>) =>
      server.call('POST', `/messages/${id}/reactions`, { as: cast.member, params });
    expect((await react(sent.body.id, reaction)).status).toBe(200);
    const later = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'direct', to: [cast.member2.id], content: ':retiring:' },
    });
    expect((await react(later.body.id, { emoji_name: 'retiring' })).body).toEqual(
      error("Emoji 'retiring' does not exist"),
    );
    expect((await react(later.body.id, reaction)).body).toEqual(
      error('This custom emoji has been deactivated.'),
    );
    const rendered = await server.call('GET', `/messages/${later.body.id}`, { as: cast.member });
    expect(rendered.body.message.content).toBe('<p>:retiring:</p>');
  });

  test('the name can be given to a new emoji, and deactivating acts on the active one', async () => {
    await add(cast.member, 'reborn');
    const [first] = await byName('reborn');
    expect((await remove(cast.member, 'reborn')).status).toBe(200);
    expect((await add(cast.member2, 'reborn')).status).toBe(200);
    const both = await byName('reborn');
    expect(both.map((e) => [e.id === first.id, e.deactivated, e.author_id])).toEqual([
      [true, true, cast.member.id],
      [false, false, cast.member2.id],
    ]);
    // The first author no longer owns an active emoji of that name.
    expect((await remove(cast.member, 'reborn')).body).toEqual(
      error('Must be an organization administrator or emoji author'),
    );
    expect((await remove(cast.member2, 'reborn')).status).toBe(200);
    expect((await byName('reborn')).every((e) => e.deactivated)).toBe(true);
  });

  test('other members, moderators and guests may not; administrators and owners may', async () => {
    await add(cast.member, 'guarded');
    await add(cast.member, 'admins_may');
    await add(cast.member, 'owners_may');
    for (const other of [cast.member2, cast.moderator, cast.guest]) {
      const res = await remove(other, 'guarded');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(error('Must be an organization administrator or emoji author'));
    }
    expect((await byName('guarded'))[0].deactivated).toBe(false);
    expect((await remove(cast.admin, 'admins_may')).status).toBe(200);
    expect((await remove(cast.owner, 'owners_may')).status).toBe(200);
    expect((await byName('admins_may'))[0].deactivated).toBe(true);
    expect((await byName('owners_may'))[0].deactivated).toBe(true);
  });

  test('an unknown or already deactivated name is a 404, and sends no event', async () => {
    await add(cast.member, 'gone_twice');
    expect((await remove(cast.member, 'gone_twice')).status).toBe(200);
    const queue = (
      await server.ok('POST', '/register', {
        as: cast.admin,
        params: { event_types: ['realm_emoji'] },
      })
    ).body.queue_id;
    for (const name of ['gone_twice', 'never_was', 'Gone_Twice']) {
      const res = await remove(cast.admin, name);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(error(`Emoji '${name}' does not exist`));
    }
    const { body } = await server.call('GET', '/events', {
      as: cast.admin,
      params: { queue_id: queue, last_event_id: -1, dont_block: true },
    });
    expect(body.events).toEqual([]);
  });
});

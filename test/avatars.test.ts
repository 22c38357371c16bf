// POST and DELETE /users/me/avatar: an uploaded picture made into square
// avatars of 100 and 500 pixels served by the server without credentials,
// a new address for each upload, going back to Gravatar, Zulip's refusals,
// and the realm_user (and for a bot, realm_bot) events applied to /register.
import { request as httpRequest } from 'node:http';
import sharp from 'sharp';
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

/** A picture of `width` by `height` pixels, left half red and right half blue. */
function picture(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const half = Math.floor(width / 2);
  return sharp({ create: { width, height, channels: 3, background: '#0000ff' } })
    .composite([
      {
        input: { create: { width: half, height, channels: 3, background: '#ff0000' } },
        left: 0,
        top: 0,
      },
    ])
    .toFormat(format)
    .toBuffer();
}

type File = { name: string; content: string | Buffer; type?: string };

function upload(as: User, files: Record<string, File>) {
  return server.call('POST', '/users/me/avatar', { as, encoding: 'multipart', files });
}

/** Requests a path of the server without credentials. */
function fetchRaw(
  path: string,
  method = 'GET',
): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = httpRequest(`${server.url}/`, { method, path }, (res) => {
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

async function me(as: User) {
  return (await server.ok('GET', '/users/me', { as })).body;
}

const uploaded = (realmId: number, version: number, medium = false) =>
  new RegExp(
    `^/user_avatars/${realmId}/[0-9a-f]{40}${medium ? '-medium' : ''}\\.png\\?version=${version}$`,
  );

test('an uploaded picture becomes square avatars of 100 and 500 pixels, served without credentials', async () => {
  const user = await server.createUser(cast.realm, { email: 'ophelia@example.com' });
  const res = await upload(user, {
    photo: { name: 'me.jpg', content: await picture(300, 200, 'jpeg'), type: 'image/jpeg' },
  });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    avatar_url: expect.stringMatching(uploaded(cast.realm.id, 2)),
  });
  const url: string = res.body.avatar_url;
  expect(await me(user)).toMatchObject({ avatar_url: url, avatar_version: 2 });
  const state = await register(server, user, { fetch_event_types: ['realm_user'] });
  expect(state).toMatchObject({
    avatar_source: 'U',
    avatar_url: url,
    avatar_url_medium: url.replace('.png?', '-medium.png?'),
  });
  // Others see it too, even those who compute Gravatar addresses themselves.
  const seen = await server.ok('GET', `/users/${user.id}`, {
    as: cast.member,
    params: { client_gravatar: true },
  });
  expect(seen.body.user.avatar_url).toBe(url);

  for (const [path, size] of [
    [url, 100],
    [state.avatar_url_medium as string, 500],
  ] as const) {
    const image = await fetchRaw(path);
    expect([image.status, image.type]).toEqual([200, 'image/png']);
    const { width, height, format } = await sharp(image.body).metadata();
    expect({ width, height, format }).toEqual({ width: size, height: size, format: 'png' });
    // Cropped at the centre: red on the left, blue on the right (JPEG blurs the colours a little).
    const { data } = await sharp(image.body).raw().toBuffer({ resolveWithObject: true });
    const colour = (at: number) => [...data.subarray(at * 3, at * 3 + 3)].map((c) => c > 128);
    expect([colour(0), colour(size - 1)]).toEqual([
      [true, false, false],
      [false, false, true],
    ]);
  }
});

test('each upload has a new address; the previous images are removed', async () => {
  const user = await server.createUser(cast.realm, { email: 'laertes@example.com' });
  const png = { name: 'a.png', content: await picture(40, 40), type: 'image/png' };
  const first = (await upload(user, { f: png })).body.avatar_url as string;
  const second = (await upload(user, { f: png })).body.avatar_url as string;
  expect(second).toMatch(uploaded(cast.realm.id, 3));
  expect(second.split('?')[0]).not.toBe(first.split('?')[0]);
  expect((await fetchRaw(second)).status).toBe(200);
  expect((await fetchRaw(first)).status).toBe(404);
  expect((await fetchRaw(first.replace('.png?', '-medium.png?'))).status).toBe(404);
});

test('DELETE goes back to Gravatar and removes the images; again, it changes nothing', async () => {
  const user = await server.createUser(cast.realm, { email: 'horatio@example.com' });
  const url = (
    await upload(user, { f: { name: 'a.png', content: await picture(10, 10), type: 'image/png' } })
  ).body.avatar_url as string;
  const gravatar = (version: number) =>
    `^https://secure\\.gravatar\\.com/avatar/[0-9a-f]{32}\\?d=identicon&version=${version}$`;
  const res = await server.call('DELETE', '/users/me/avatar', { as: user });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    avatar_url: expect.stringMatching(new RegExp(gravatar(3))),
  });
  expect(await me(user)).toMatchObject({ avatar_url: res.body.avatar_url, avatar_version: 3 });
  expect((await fetchRaw(url)).status).toBe(404);
  expect((await fetchRaw(url.replace('.png?', '-medium.png?'))).status).toBe(404);

  const queue = await register(server, cast.member, { event_types: ['realm_user'] });
  const again = await server.call('DELETE', '/users/me/avatar', { as: user });
  expect(again.body).toEqual(res.body);
  expect(await eventsOf(server, cast.member, queue.queue_id)).toEqual([]);
});

test("Zulip's refusals: no file, two files, not an image, not decodable, too large", async () => {
  const user = await server.createUser(cast.realm, { email: 'osric@example.com' });
  const png = await picture(8, 8);
  expectError(await upload(user, {}), 400, 'BAD_REQUEST', 'You must upload exactly one avatar.');
  expectError(
    await upload(user, {
      a: { name: 'a.png', content: png, type: 'image/png' },
      b: { name: 'b.png', content: png, type: 'image/png' },
    }),
    400,
    'BAD_REQUEST',
    'You must upload exactly one avatar.',
  );
  expectError(
    await upload(user, { f: { name: 'notes.txt', content: 'hello', type: 'text/plain' } }),
    400,
    'BAD_IMAGE',
    'Invalid image format',
  );
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>';
  expectError(
    await upload(user, { f: { name: 'a.svg', content: svg, type: 'image/svg+xml' } }),
    400,
    'BAD_IMAGE',
    'Invalid image format',
  );
  for (const content of [
    Buffer.from('not a picture at all'),
    Buffer.from(svg),
    png.subarray(0, 40),
  ])
    expectError(
      await upload(user, { f: { name: 'a.png', content, type: 'image/png' } }),
      400,
      'BAD_IMAGE',
      'Could not decode image; did you upload an image file?',
    );
  expectError(
    await upload(user, {
      f: { name: 'big.png', content: Buffer.alloc(5 * 1024 * 1024 + 1), type: 'image/png' },
    }),
    400,
    'BAD_REQUEST',
    'Uploaded file is larger than the allowed limit of 5 MiB',
  );
  // Nothing changed.
  expect(await me(user)).toMatchObject({ avatar_version: 1 });
  // A picture whose name says PNG but whose bytes are JPEG is still read.
  const jpeg = await picture(8, 8, 'jpeg');
  expect((await upload(user, { f: { name: 'a.png', content: jpeg } })).status).toBe(200);
});

test('everyone hears of the new avatar; applied to /register it gives a fresh /register', async () => {
  const user = await server.createUser(cast.realm, { email: 'yorick@example.com' });
  const params = { fetch_event_types: ['realm_user'], event_types: ['realm_user'] };
  const mine = await register(server, user, params);
  const theirs = await register(server, cast.member, params);
  const url = (
    await upload(user, { f: { name: 'a.png', content: await picture(20, 20), type: 'image/png' } })
  ).body.avatar_url as string;
  const uploadEvent = {
    type: 'realm_user',
    op: 'update',
    person: {
      user_id: user.id,
      avatar_source: 'U',
      avatar_url: url,
      avatar_url_medium: url.replace('.png?', '-medium.png?'),
      avatar_version: 2,
    },
  };
  expect(withoutIds(await eventsOf(server, cast.member, theirs.queue_id))).toEqual([uploadEvent]);
  const gravatar = (await server.ok('DELETE', '/users/me/avatar', { as: user })).body.avatar_url;
  const events = await eventsOf(server, user, mine.queue_id);
  expect(withoutIds(events)).toEqual([
    uploadEvent,
    {
      type: 'realm_user',
      op: 'update',
      person: {
        user_id: user.id,
        avatar_source: 'G',
        avatar_url: gravatar,
        avatar_url_medium: `${gravatar}&s=500`,
        avatar_version: 3,
      },
    },
  ]);
  for (const [as, state] of [
    [user, mine],
    [cast.member, theirs],
  ] as const) {
    const applied = applyEvents(state, await eventsOf(server, as, state.queue_id));
    const fresh = await register(server, as, params);
    for (const key of ['realm_users', 'avatar_source', 'avatar_url', 'avatar_url_medium'])
      expect([key, applied[key]]).toEqual([key, fresh[key]]);
  }
});

test("a bot's owner hears of its new avatar in a realm_bot update", async () => {
  const created = await server.ok('POST', '/bots', {
    as: cast.member2,
    params: { full_name: 'Painter', short_name: 'painter', bot_type: 1 },
  });
  const bot = await server.services.db.read((db) =>
    db.user.findUniqueOrThrow({ where: { id: created.body.user_id } }),
  );
  const queue = await register(server, cast.member2, { event_types: ['realm_bot'] });
  const res = await upload(bot, {
    f: { name: 'a.png', content: await picture(16, 16), type: 'image/png' },
  });
  expect(res.status).toBe(200);
  expect(withoutIds(await eventsOf(server, cast.member2, queue.queue_id))).toEqual([
    {
      type: 'realm_bot',
      op: 'update',
      bot: { user_id: created.body.user_id, avatar_url: res.body.avatar_url },
    },
  ]);
  const listed = await server.ok('GET', '/bots', { as: cast.member2 });
  expect(
    listed.body.bots.find((b: { username: string }) => b.username === bot.email),
  ).toMatchObject({ avatar_url: res.body.avatar_url });
});

test('senders of messages show their uploaded avatar', async () => {
  const user = await server.createUser(cast.realm, { email: 'fortinbras@example.com' });
  const url = (
    await upload(user, { f: { name: 'a.png', content: await picture(12, 12), type: 'image/png' } })
  ).body.avatar_url as string;
  const sent = await server.ok('POST', '/messages', {
    as: user,
    params: { type: 'direct', to: [cast.member.id], content: 'a new face' },
  });
  const fetched = await server.ok('GET', `/messages/${sent.body.id}`, { as: cast.member });
  expect(fetched.body.message.avatar_url).toBe(url);
});

test('avatar addresses that name no upload are not found, and only GET is served', async () => {
  expect((await fetchRaw(`/user_avatars/${cast.realm.id}/${'0'.repeat(40)}.png`)).status).toBe(404);
  expect((await fetchRaw(`/user_avatars/${cast.realm.id}/${cast.member.id}.png`)).status).toBe(404);
  const url = (
    await upload(cast.member2, {
      f: { name: 'a.png', content: await picture(12, 12), type: 'image/png' },
    })
  ).body.avatar_url as string;
  expect((await fetchRaw(url, 'POST')).status).toBe(405);
  expect((await fetchRaw(url, 'DELETE')).status).toBe(405);
  expect((await fetchRaw(url)).status).toBe(200);
});

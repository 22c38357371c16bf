// Image previews in rendered messages, over HTTP: a link to an uploaded image
// stays relative and gets Zulip's <div class="message_inline_image"> showing
// the original file (no thumbnails are made); videos get a player; other
// uploads, unknown paths and quotes get none; links to image files elsewhere
// are previewed too, unless the organization turns previews off.
import type { User } from '../generated/prisma/sqlite/client';
import { eventsOf, register, sendToChannel, subscribe } from './streams-fixtures';
import { TINY_PNG } from './support/example-fixture';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['design'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

async function upload(as: User, name: string, content: string | Buffer, type: string) {
  const res = await server.call('POST', '/user_uploads', {
    as,
    encoding: 'multipart',
    files: { file: { name, content, type } },
  });
  if (res.status !== 200) throw new Error(`upload failed: ${JSON.stringify(res.body)}`);
  return res.body.url as string;
}

async function contentOf(id: number, as: User = cast.member2): Promise<string> {
  const res = await server.call('GET', `/messages/${id}`, { as });
  return res.body.message.content;
}

const preview = (href: string, title?: string) =>
  `<div class="message_inline_image"><a href="${href}"${title ? ` title="${title}"` : ''}><img src="${href}"></a></div>`;

test('a link to an uploaded image gets its preview, showing the original file', async () => {
  const url = await upload(cast.member, 'pic.png', TINY_PNG, 'image/png');
  expect(url).toMatch(/^\/user_uploads\/\d+\/[0-9a-f]{24}\/pic\.png$/);
  const id = await sendToChannel(server, cast.member, 'design', 'pics', `[pic.png](${url})`);
  expect(await contentOf(id)).toBe(
    `<p><a href="${url}">pic.png</a></p>\n${preview(url, 'pic.png')}`,
  );

  // The preview's image is the uploaded file, which the recipient may fetch.
  const auth = `Basic ${Buffer.from(`${cast.member2.email}:${cast.member2.apiKey}`).toString('base64')}`;
  const image = await fetch(`${server.url}${url}`, { headers: { authorization: auth } });
  expect(image.status).toBe(200);
  expect(Buffer.from(await image.arrayBuffer())).toEqual(TINY_PNG);

  // The message is found as one with an image, and the upload is claimed.
  const narrow = await server.call('GET', '/messages', {
    as: cast.member2,
    params: {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: JSON.stringify([{ operator: 'has', operand: 'image' }]),
    },
  });
  expect(narrow.body.messages.map((m: { id: number }) => m.id)).toContain(id);
  const attachments = await server.call('GET', '/attachments', { as: cast.member });
  const mine = attachments.body.attachments.find(
    (a: { path_id: string }) => `/user_uploads/${a.path_id}` === url,
  );
  expect(mine.messages.map((m: { id: number }) => m.id)).toEqual([id]);
});

test('the same in a preview from POST /messages/render', async () => {
  const url = await upload(cast.member, 'shot.png', TINY_PNG, 'image/png');
  const res = await server.call('POST', '/messages/render', {
    as: cast.member,
    params: { content: `Look:\n[shot.png](${url})` },
  });
  expect(res.body.rendered).toBe(
    `<p>Look:<br>\n<a href="${url}">shot.png</a></p>\n${preview(url, 'shot.png')}`,
  );
});

test('no preview for an upload that is not an image, nor for a path the realm does not hold', async () => {
  const text = await upload(cast.member, 'notes.png', 'not really a picture', 'text/plain');
  const missing = '/user_uploads/1/0123456789abcdef01234567/gone.png';
  const id = await sendToChannel(
    server,
    cast.member,
    'design',
    'pics',
    `[notes.png](${text}) [gone.png](${missing})`,
  );
  expect(await contentOf(id)).toBe(
    `<p><a href="${text}">notes.png</a> <a href="${missing}">gone.png</a></p>`,
  );
});

test('an absolute link to the realm is made relative, as Zulip writes it', async () => {
  const url = await upload(cast.member, 'abs.png', TINY_PNG, 'image/png');
  const state = await register(server, cast.member, { fetch_event_types: ['realm'] });
  const absolute = `${state.realm_url}${url}`;
  const id = await sendToChannel(server, cast.member, 'design', 'pics', `see ${absolute}`);
  const relative = url.slice(1);
  expect(await contentOf(id)).toBe(
    `<p>see <a href="${relative}">${absolute}</a></p>\n${preview(relative, absolute)}`,
  );
});

test('a link to an uploaded video gets a player', async () => {
  const url = await upload(cast.member, 'clip.mp4', Buffer.from('not much of a film'), 'video/mp4');
  const id = await sendToChannel(server, cast.member, 'design', 'pics', `[clip.mp4](${url})`);
  expect(await contentOf(id)).toBe(
    `<p><a href="${url}">clip.mp4</a></p>\n` +
      `<div class="message_inline_image message_inline_video"><a href="${url}" title="clip.mp4"><video preload="metadata" src="${url}"></video></a></div>`,
  );
});

test('image URLs elsewhere are previewed, but not inside quotes', async () => {
  const image = 'https://example.com/images/logo.png';
  const id = await sendToChannel(server, cast.member, 'design', 'pics', `${image}\n\n> ${image}`);
  expect(await contentOf(id)).toBe(
    `${preview(image)}<blockquote>\n<p><a href="${image}" target="_blank" rel="noopener noreferrer">${image}</a></p>\n</blockquote>`,
  );
});

test('channel descriptions get no previews', async () => {
  const image = 'https://example.com/images/banner.png';
  const created = await server.call('POST', '/users/me/subscriptions', {
    as: cast.member,
    params: { subscriptions: [{ name: 'gallery', description: `Banner: ${image}` }] },
  });
  expect(created.status).toBe(200);
  const res = await server.call('GET', '/streams', { as: cast.member });
  const gallery = res.body.streams.find((s: { name: string }) => s.name === 'gallery');
  expect(gallery.rendered_description).toBe(
    `<p>Banner: <a href="${image}" target="_blank" rel="noopener noreferrer">${image}</a></p>`,
  );
});

test('the organization setting inline_image_preview turns previews off and on', async () => {
  const image = 'https://example.com/images/photo.jpg';
  const queue = await register(server, cast.member, { event_types: ['realm'] });
  const off = await server.call('PATCH', '/realm', {
    as: cast.admin,
    params: { inline_image_preview: false },
  });
  expect(off.status).toBe(200);
  const events = await eventsOf(server, cast.member, queue.queue_id);
  expect(events).toContainEqual(
    expect.objectContaining({
      type: 'realm',
      op: 'update_dict',
      property: 'default',
      data: { inline_image_preview: false },
    }),
  );
  const state = await register(server, cast.member, { fetch_event_types: ['realm'] });
  expect(state.realm_inline_image_preview).toBe(false);

  const link = `<a href="${image}" target="_blank" rel="noopener noreferrer">${image}</a>`;
  const id = await sendToChannel(server, cast.member, 'design', 'pics', image);
  expect(await contentOf(id)).toBe(`<p>${link}</p>`);
  const rendered = await server.call('POST', '/messages/render', {
    as: cast.member,
    params: { content: image },
  });
  expect(rendered.body.rendered).toBe(`<p>${link}</p>`);

  await server.ok('PATCH', '/realm', { as: cast.admin, params: { inline_image_preview: true } });
  const again = await sendToChannel(server, cast.member, 'design', 'pics', image);
  expect(await contentOf(again)).toBe(preview(image));

  const bad = await server.call('PATCH', '/realm', {
    as: cast.admin,
    params: { inline_image_preview: 'sometimes' },
  });
  expect(bad.status).toBe(400);
  expect(bad.body.result).toBe('error');
});

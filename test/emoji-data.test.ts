// The emoji data named by `server_emoji_data_url` in the register response:
// served without credentials, in Zulip's { code_to_names } format, from the
// server's own emoji table.
import { get } from 'node:http';
import { TestServer, type Cast } from './support/server';
import { register } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  server = await TestServer.start({ EXTERNAL_URL: 'https://chat.example.net' });
  cast = await server.createCast();
});
afterAll(() => server.stop());

// The register response names the data on EXTERNAL_URL; the test server listens elsewhere.
async function emojiDataUrl(): Promise<string> {
  const state = await register(server, cast.member, { fetch_event_types: ['realm'] });
  const url = new URL(String(state.server_emoji_data_url));
  expect(url.origin).toBe('https://chat.example.net');
  return `${server.url}${url.pathname}`;
}

test('the URL in the register response serves every emoji code with its names', async () => {
  const res = await fetch(await emojiDataUrl());
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = (await res.json()) as { code_to_names: Record<string, string[]> };
  expect(Object.keys(body)).toEqual(['code_to_names']);
  // Canonical name first, then the aliases.
  expect(body.code_to_names['1f44d']).toEqual(['+1', 'thumbs_up', 'like']);
  expect(body.code_to_names['1f642'][0]).toBe('smile');
  expect(body.code_to_names['2708']).toContain('airplane');
  expect(Object.keys(body.code_to_names).length).toBeGreaterThan(1500);
  for (const [code, names] of Object.entries(body.code_to_names)) {
    expect(code).toMatch(/^[0-9a-f]+(-[0-9a-f]+)*$/);
    expect(names.length).toBeGreaterThan(0);
  }
});

test('every name in the data is accepted as a reaction with its code', async () => {
  const body = (await (await fetch(await emojiDataUrl())).json()) as {
    code_to_names: Record<string, string[]>;
  };
  const sent = await server.call('POST', '/messages', {
    as: cast.member,
    params: { type: 'direct', to: JSON.stringify([cast.member2.id]), content: 'hi' },
  });
  const [code, names] = Object.entries(body.code_to_names).find(([, n]) => n.length > 1)!;
  const res = await server.call('POST', `/messages/${sent.body.id}/reactions`, {
    as: cast.member,
    params: { emoji_name: names[names.length - 1] },
  });
  expect(res.status).toBe(200);
  const message = await server.call('GET', `/messages/${sent.body.id}`, { as: cast.member });
  expect(message.body.message.reactions).toEqual([
    expect.objectContaining({ emoji_code: code, emoji_name: names[0] }),
  ]);
});

test('can be revalidated, and only read', async () => {
  const url = await emojiDataUrl();
  const first = await fetch(url);
  const etag = first.headers.get('etag');
  expect(etag).toMatch(/^"[\w-]+"$/);
  // node:http, since fetch adds Cache-Control: no-cache to a conditional request.
  const again = await new Promise<number | undefined>((resolve, reject) => {
    get(url, { headers: { 'if-none-match': etag! } }, (res) => resolve(res.resume().statusCode)).on(
      'error',
      reject,
    );
  });
  expect(again).toBe(304);
  const post = await fetch(url, { method: 'POST' });
  expect(post.status).toBe(405);
  expect(post.headers.get('allow')).toBe('GET, HEAD');
});

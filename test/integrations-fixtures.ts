// Shared by the integration tests (test/integrations-*.test.ts): an incoming
// webhook bot of the member, the service payloads of test/fixtures/webhooks/,
// and what a request made the bot post, read back through GET /messages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { User } from '../generated/prisma/sqlite/client';
import type { Reply, TestServer } from './support/server';

/** An incoming webhook bot: its user ID and API key. */
export interface Hook {
  id: number;
  apiKey: string;
}

/** A message as the bot's owner reads it back, its content as sent (not rendered). */
export interface Posted {
  id: number;
  type: 'stream' | 'private';
  topic: string;
  content: string;
  client: string;
  sender_id: number;
}

/** A payload of test/fixtures/webhooks/<service>/<name>.json. */
export function fixture(service: string, name: string): any {
  const path = join(__dirname, 'fixtures', 'webhooks', service, `${name}.json`);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Makes an incoming webhook bot owned by `owner`. */
export async function makeHook(server: TestServer, owner: User, shortName: string): Promise<Hook> {
  const res = await server.call('POST', '/bots', {
    as: owner,
    params: { full_name: `${shortName} hook`, short_name: shortName, bot_type: 2 },
  });
  if (res.status !== 200) throw new Error(`bot not made: ${JSON.stringify(res.body)}`);
  return { id: res.body.user_id, apiKey: res.body.api_key };
}

/** Posts `body` as JSON to /external/<integration> with the bot's key and `query`. */
export function deliver(
  server: TestServer,
  integration: string,
  hook: Hook,
  body: unknown,
  options: { query?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const search = new URLSearchParams({ api_key: hook.apiKey, ...options.query }).toString();
  return server.call('POST', `/external/${integration}?${search}`, {
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
  });
}

/** The ID of the newest message `reader` can see (0 when none). */
async function newestId(server: TestServer, reader: User): Promise<number> {
  const res = await server.call('GET', '/messages', {
    as: reader,
    params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] },
  });
  return res.body.messages[0]?.id ?? 0;
}

/**
 * Runs `send` and returns its answer with the messages that appeared for
 * `reader` meanwhile, oldest first, their content as sent.
 */
export async function postedBy(
  server: TestServer,
  reader: User,
  send: () => Promise<Reply>,
): Promise<{ reply: Reply; messages: Posted[] }> {
  const before = await newestId(server, reader);
  const reply = await send();
  const res = await server.call('GET', '/messages', {
    as: reader,
    params: {
      anchor: before,
      include_anchor: false,
      num_before: 0,
      num_after: 100,
      narrow: [],
      apply_markdown: false,
    },
  });
  if (res.status !== 200) throw new Error(`fetch failed: ${JSON.stringify(res.body)}`);
  const messages = res.body.messages.map((m: any) => ({
    id: m.id,
    type: m.type,
    topic: m.subject,
    content: m.content,
    client: m.client,
    sender_id: m.sender_id,
  }));
  return { reply, messages };
}

// Small helpers shared by the channel, subscription and message tests: each
// goes through HTTP like any client, and fails loudly when a step it relies
// on does not succeed.
import type { User } from '../generated/prisma/sqlite/client';
import type { QueueEvent } from './support/events';
import type { TestServer } from './support/server';

/** Subscribes `as` (or `principals`) to channels, creating them with `settings`; returns the body. */
export async function subscribe(
  server: TestServer,
  as: User,
  names: string[],
  settings: Record<string, unknown> = {},
) {
  const res = await server.call('POST', '/users/me/subscriptions', {
    as,
    params: { subscriptions: names.map((name) => ({ name })), ...settings },
  });
  if (res.status !== 200) throw new Error(`subscribe failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The ID of the channel called `name`, read through GET /streams as an administrator-visible listing. */
export async function streamId(server: TestServer, as: User, name: string): Promise<number> {
  const res = await server.call('GET', '/streams', {
    as,
    params: { include_all: true, exclude_archived: false },
  });
  const found = res.body.streams.find((s: { name: string }) => s.name === name);
  if (!found) throw new Error(`no channel ${name} visible to ${as.email}`);
  return found.stream_id;
}

/** Sends a channel message; returns its ID. */
export async function sendToChannel(
  server: TestServer,
  as: User,
  channel: string | number,
  topic: string,
  content: string,
): Promise<number> {
  const res = await server.call('POST', '/messages', {
    as,
    params: { type: 'stream', to: channel, topic, content },
  });
  if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Sends a direct message; returns its ID. */
export async function sendDirect(
  server: TestServer,
  as: User,
  to: number[],
  content: string,
): Promise<number> {
  const res = await server.call('POST', '/messages', {
    as,
    params: { type: 'direct', to, content },
  });
  if (res.status !== 200) throw new Error(`send failed: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** GET /messages with a narrow; returns the body. */
export async function fetchNarrow(
  server: TestServer,
  as: User,
  narrow: unknown[],
  params: Record<string, unknown> = {},
) {
  const res = await server.call('GET', '/messages', {
    as,
    params: { anchor: 'newest', num_before: 1000, num_after: 0, narrow, ...params },
  });
  if (res.status !== 200) throw new Error(`fetch failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The IDs of the messages a narrow finds for `as`. */
export async function idsOf(
  server: TestServer,
  as: User,
  narrow: unknown[],
  params: Record<string, unknown> = {},
): Promise<number[]> {
  return (await fetchNarrow(server, as, narrow, params)).messages.map((m: { id: number }) => m.id);
}

/** Registers an event queue; returns the whole body (queue_id and state). */
export async function register(server: TestServer, as: User, params: Record<string, unknown> = {}) {
  const res = await server.call('POST', '/register', { as, params });
  if (res.status !== 200) throw new Error(`register failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The events waiting in a queue, without blocking. */
export async function eventsOf(
  server: TestServer,
  as: User,
  queueId: string,
): Promise<QueueEvent[]> {
  const res = await server.call('GET', '/events', {
    as,
    params: { queue_id: queueId, last_event_id: -1, dont_block: true },
  });
  if (res.status !== 200) throw new Error(`events failed: ${JSON.stringify(res.body)}`);
  return res.body.events.filter((e: { type: string }) => e.type !== 'heartbeat');
}

/** Expects an error response with exact status, code and message. */
export function expectError(
  res: { status: number; body: any },
  status: number,
  code: string,
  msg: string,
  extra: Record<string, unknown> = {},
) {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { result: 'error', msg, code, ...extra },
  });
}

/** Expects a 400 refusal in Zulip's envelope: `msg`, `code` and any further fields. */
export function expectRefusal(
  res: { status: number; body: any },
  msg: string,
  code = 'BAD_REQUEST',
  extra: Record<string, unknown> = {},
) {
  expectError(res, 400, code, msg, extra);
}

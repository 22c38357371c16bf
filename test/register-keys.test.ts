// The complete initial state of POST /register: every key Zulip's answer has,
// by the fetch_event_types entry that asks for it, with its JSON type, read
// from test/data/register-keys.md (the list of Zulip's answer at feature level
// 420). Each entry is asked for alone, then all of them at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast } from './support/server';

/** One key of the list: its name and JSON type as the list writes it. */
interface KeySpec {
  name: string;
  type: string;
}

/** The list: keys by entry (`-` for keys tied to no entry), and the keys of `user_settings`. */
function readKeyList(): { entries: Map<string, KeySpec[]>; userSettings: string[] } {
  const text = readFileSync(join(__dirname, 'data', 'register-keys.md'), 'utf8');
  const entries = new Map<string, KeySpec[]>();
  let userSettings: string[] = [];
  let current: KeySpec[] | undefined;
  for (const line of text.split('\n')) {
    const heading = /^## (\S+)(.*)$/.exec(line);
    if (heading) {
      current = heading[2] ? undefined : [];
      if (current) entries.set(heading[1], current);
      continue;
    }
    const key = /^- `(\w+)`: (.+?)( \(deprecated\))?$/.exec(line);
    if (key && current) current.push({ name: key[1], type: key[2] });
    else if (!current && line.startsWith('`'))
      userSettings = [...line.matchAll(/`(\w+)`/g)].map((m) => m[1]);
  }
  return { entries, userSettings };
}

const { entries, userSettings } = readKeyList();
const entryNames = [...entries.keys()].filter((name) => name !== '-');

/**
 * Keys the list writes as `object` because Zulip's description gives them as a
 * named schema: a group-setting value is a group ID or an object of members
 * and subgroups; the envelope's fields are strings, and ignored parameters a list.
 */
const namedSchemaTypes: Record<string, string> = {
  result: 'string',
  msg: 'string',
  ignored_parameters_unsupported: 'array of string',
};
const groupSettingValue = /^realm_(can_\w+|create_multiuse_invite_group|direct_message_\w+_group)$/;

/** Whether `value` has the JSON type `type` (`integer or null`, `array of array of string|integer`, ...). */
function hasType(value: unknown, type: string): boolean {
  const nullable = /^(.+) or null$/.exec(type);
  if (nullable) return value === null || hasType(value, nullable[1]);
  const list = /^array of (.+)$/.exec(type);
  if (list) return Array.isArray(value) && value.every((item) => hasType(item, list[1]));
  if (type.includes('|')) return type.split('|').some((t) => hasType(value, t));
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      throw new Error(`unknown type in register-keys.md: ${type}`);
  }
}

/** The type a key must have in the answer. */
function expectedType(key: KeySpec): string {
  if (namedSchemaTypes[key.name]) return namedSchemaTypes[key.name];
  if (groupSettingValue.test(key.name)) return 'integer|object';
  return key.type;
}

/**
 * `-` keys and others sent only in some cases, with the case: a demo
 * organization's deletion date (ours are never demos), muted_topics (not when
 * user_topic is asked for by name), unread_msgs (with both message and
 * update_message_flags), drafts (with the drafts entry), the top-level
 * receives_typing_notifications (with the legacy display settings, for
 * clients without user_settings_object), and ignored_parameters_unsupported
 * (when a parameter is not one of the operation's).
 */
const conditional = new Set([
  'demo_organization_scheduled_deletion_date',
  'muted_topics',
  'unread_msgs',
  'ignored_parameters_unsupported',
  'drafts',
  'receives_typing_notifications',
]);

/** `-` keys in every answer, whatever was asked. */
const always = entries
  .get('-')!
  .filter((k) => !conditional.has(k.name))
  .map((k) => k.name);

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

async function register(user: User, params: Record<string, unknown>) {
  const res = await server.call('POST', '/register', { as: user, params });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

/** The keys of `keys` missing from `body` or of another type, as readable lines. */
function problems(body: Record<string, unknown>, keys: KeySpec[]): string[] {
  const out: string[] = [];
  for (const key of keys) {
    if (!(key.name in body)) out.push(`${key.name}: missing`);
    else if (!hasType(body[key.name], expectedType(key)))
      out.push(`${key.name}: ${JSON.stringify(body[key.name])} is not ${expectedType(key)}`);
  }
  return out;
}

test('the list has the 40 entries, 244 keys and 65 user settings it promises', () => {
  expect(entryNames).toHaveLength(40);
  expect([...entries.values()].flat()).toHaveLength(244);
  expect(userSettings).toHaveLength(65);
});

describe.each(entryNames)('fetch_event_types [%s]', (entry) => {
  test.each([
    ['a member', 'member'],
    ['an administrator', 'admin'],
    ['a guest', 'guest'],
  ] as const)('gives %s every key of the entry, with its type', async (_who, role) => {
    const body = await register(cast[role], {
      fetch_event_types: [entry],
      event_types: [entry],
    });
    const own = entries.get(entry)!.filter((k) => !conditional.has(k.name));
    expect(problems(body, own)).toEqual([]);
    expect(
      problems(
        body,
        entries.get('-')!.filter((k) => always.includes(k.name)),
      ),
    ).toEqual([]);
  });
});

test('without fetch_event_types every key is there, deprecated and legacy ones included', async () => {
  const body = await register(cast.member, { zebra: 1 });
  const all = [...entries.values()]
    .flat()
    .filter((k) => k.name !== 'demo_organization_scheduled_deletion_date');
  expect(problems(body, all)).toEqual([]);
  expect(body.ignored_parameters_unsupported).toEqual(['zebra']);
  // Our organizations are never demo organizations.
  expect(body).not.toHaveProperty('demo_organization_scheduled_deletion_date');
});

test('user_settings holds the 65 settings', async () => {
  const body = await register(cast.member, { fetch_event_types: ['user_settings'] });
  expect(Object.keys(body.user_settings as object).sort()).toEqual([...userSettings].sort());
});

test('the legacy top-level settings are left out for clients with user_settings_object', async () => {
  const legacy = [
    ...entries.get('update_display_settings')!,
    ...entries.get('update_global_notifications')!,
  ].map((k) => k.name);
  const modern = await register(cast.member, {
    client_capabilities: { user_settings_object: true },
  });
  for (const name of legacy) expect(modern).not.toHaveProperty(name);
  expect(modern).not.toHaveProperty('receives_typing_notifications');
  expect(modern.user_settings).toBeDefined();
  const old = await register(cast.member, {
    fetch_event_types: ['update_display_settings', 'update_global_notifications'],
  });
  for (const name of legacy) expect(old).toHaveProperty(name);
  expect(old.receives_typing_notifications).toBe(true);
  expect(old).not.toHaveProperty('user_settings');
});

test('muted_topics is left out when user_topic is asked for by name', async () => {
  const both = await register(cast.member, { fetch_event_types: ['muted_topics', 'user_topic'] });
  expect(both).not.toHaveProperty('muted_topics');
  expect(both.user_topics).toEqual([]);
  const legacy = await register(cast.member, { fetch_event_types: ['muted_topics'] });
  expect(legacy.muted_topics).toEqual([]);
});

test('unread_msgs comes with message and update_message_flags together', async () => {
  const flagsOnly = await register(cast.member, { fetch_event_types: ['update_message_flags'] });
  expect(flagsOnly).not.toHaveProperty('unread_msgs');
  const both = await register(cast.member, {
    fetch_event_types: ['message', 'update_message_flags'],
  });
  expect(problems(both, [{ name: 'unread_msgs', type: 'object' }])).toEqual([]);
});

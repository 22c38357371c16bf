// Every example of openapi.yaml, replayed. A test server gets the organization
// the examples are written for (test/support/example-fixture.ts); each request
// example is sent to it as its answer's `x-as` (King Hamlet by default), and
// the answer must have the example's status, match the operation's documented
// responses, and equal the example once what the server picks at random
// (times, random IDs) is set aside. So an example cannot go stale. Operations
// that only read go first, on the organization as built; the others follow in
// the order of openapi.yaml (but for `firstWrites`), success examples before
// error ones.
//
// With EXAMPLES_DUMP=<file>, the answers actually received are also written
// to that file (JSON), to help write or update examples.
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { openContract, specPath, type ContractBackend } from '../src/http/spec';
import { responseErrors } from './support/compiled-cache';
import { TestServer, type Reply } from './support/server';
import { buildExampleFixture, TINY_PNG, type ExampleFixture } from './support/example-fixture';
import {
  casesOf,
  deref,
  document,
  normalize,
  operations,
  requestExampleNames,
  targetOf,
  type Case,
} from './support/examples';

const all = operations();
/** openapi-backend over the contract, opened when a response validator is not in the cache. */
let backend: ContractBackend | undefined;
const openBackend = () => (backend ??= openContract(specPath));
/**
 * Writes that go before the others: the organization Zephyr is deactivated
 * by the deactivate-realm example, and shown deactivated by later ones.
 */
const firstWrites = new Set(['deactivate-realm']);
const readsFirst = [
  ...all.filter((op) => op.method === 'GET'),
  ...all.filter((op) => op.method !== 'GET' && firstWrites.has(op.id)),
  ...all.filter((op) => op.method !== 'GET' && !firstWrites.has(op.id)),
];
/**
 * Success examples first: on PostgreSQL a refused write may still use up an
 * ID of a sequence, which would shift the IDs a success example shows.
 */
const replayed: Case[] = readsFirst.flatMap((op) =>
  casesOf(op).sort((a, b) => Number(a.answer.status >= 300) - Number(b.answer.status >= 300)),
);

/**
 * Documented error codes the example organization cannot cause, by operation:
 * wildcard mentions are refused only in channels and topics of more than 15
 * people, moves only past a time limit of days, and resends of invitations
 * only at the daily invitation limit, which the organization's few
 * invitations stay below (test/invites.test.ts covers that refusal).
 */
const unreplayableCodes: Record<string, string[]> = {
  'send-message': ['STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED'],
  'update-message': [
    'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
    'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
  ],
  'resend-email-invite': ['INVITATION_FAILED'],
};

/** The error codes the contract allows, from the `code` enum of CodedError. */
const errorCodes: string[] = document.components.schemas.CodedError.properties.code.enum ?? [];

let server: TestServer;
let fixture: ExampleFixture;
const dump: unknown[] = [];

beforeAll(async () => {
  // A daily invitation limit of 10 (not 3000), so that the example of the
  // limit (send-invites, daily-limit) reaches it with ten addresses.
  // Lear & Co. (the organization at the root address) accepts JSON Web Tokens
  // signed with this secret, as the jwt-fetch-api-key examples are.
  server = await TestServer.start({
    EXTERNAL_URL: 'http://localhost:9991',
    INVITATIONS_PER_DAY: '10',
    JWT_AUTH_KEYS: JSON.stringify({ '': { key: 'lear-and-co-jwt-secret', algorithms: ['HS256'] } }),
  });
}, 120_000);
afterAll(async () => {
  if (process.env.EXAMPLES_DUMP)
    writeFileSync(process.env.EXAMPLES_DUMP, JSON.stringify(dump, null, 2));
  await server?.stop();
});

/** `value` with the values the examples name replaced by the ones the server picked. */
function standIn(value: any): any {
  if (typeof value === 'string') return fixture.standIns.get(value) ?? value;
  if (Array.isArray(value)) return value.map(standIn);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, standIn(v)]));
  return value;
}

/** Sends a case's request as its user, with the API key the user has now (an example may replace it). */
async function send(c: Case): Promise<Reply> {
  const known = fixture.users.get(c.as);
  if (!known)
    throw new Error(`${c.operation.id} ${c.name}: x-as names no user of the fixture: ${c.as}`);
  const as = await server.services.db.read((db) =>
    db.user.findUniqueOrThrow({ where: { id: known.id } }),
  );
  const target = targetOf({ ...c, pathParams: standIn(c.pathParams), query: standIn(c.query) });
  const headers = { ...c.headers, ...(c.host ? { host: c.host } : {}) };
  const credentials = {
    ...(c.operation.public ? {} : { as }),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
  if (c.body?.type === 'multipart/form-data') {
    const files: Record<string, { name: string; content: Buffer | string; type?: string }> = {};
    const params: Record<string, unknown> = {};
    for (const [field, value] of Object.entries<any>(c.body.value)) {
      // A file is named by its file name; images are a real (tiny) PNG.
      if (typeof value === 'string' && /\.\w+$/.test(value) && field === 'filename')
        files[field] = value.endsWith('.png')
          ? { name: value, content: TINY_PNG, type: 'image/png' }
          : { name: value, content: `The contents of ${value}.\n`, type: 'text/plain' };
      else params[field] = value;
    }
    return server.call(c.operation.method, target, {
      ...credentials,
      encoding: 'multipart',
      params,
      files,
    });
  }
  if (c.body)
    return server.call(c.operation.method, target, {
      ...credentials,
      encoding: 'json',
      params: standIn(c.body.value),
    });
  return server.call(c.operation.method, target, { ...credentials, encoding: 'query' });
}

describe('every operation carries its examples', () => {
  // Every operation, so that a new one cannot go without examples.
  test.each(all.map((op) => [op.id, op] as const))('%s', async (_, op) => {
    const cases = casesOf(op);
    const names = requestExampleNames(op);
    const successes = cases.filter((c) => c.answer.status < 300);
    // Every operation shows a success, replayed unless the server never gives it.
    const shownSuccesses = op.answers.filter((a) => !a.shared && a.status < 300);
    expect([op.id, shownSuccesses.length > 0]).toEqual([op.id, true]);
    // With anything to send, each success example has its request.
    if (op.parameters.length > 0 || op.bodies.length > 0)
      for (const c of successes)
        expect([op.id, c.name, names.has(c.name)]).toEqual([op.id, c.name, true]);
    // Each request example has its answer.
    const answered = new Set(cases.map((c) => c.name));
    for (const name of names)
      expect([op.id, name, answered.has(name)]).toEqual([op.id, name, true]);
    // Every media type of the body shows the same examples.
    for (const body of op.bodies.slice(1))
      expect([op.id, body.type, body.examples]).toEqual([op.id, body.type, op.bodies[0].examples]);
    // Each error code the operation documents has an example.
    const text = [op.description, ...op.responses.map((r) => r.description)].join('\n');
    const documented = new Set(errorCodes.filter((code) => text.includes(`\`${code}\``)));
    const shown = new Set(op.answers.map((a) => a.example.value?.code).filter(Boolean));
    for (const code of unreplayableCodes[op.id] ?? []) documented.delete(code);
    for (const code of documented)
      expect([op.id, code, shown.has(code)]).toEqual([op.id, code, true]);
    // Each example matches the schema of its response.
    for (const answer of op.answers) {
      expect([op.id, answer.name, typeof answer.example.summary]).toEqual([
        op.id,
        answer.name,
        'string',
      ]);
      const errors = responseErrors(answer.example.value, op.id, answer.status, openBackend);
      expect([op.id, answer.name, errors ?? []]).toEqual([op.id, answer.name, []]);
    }
  });

  test('error codes are an enum that every error example uses', () => {
    expect(errorCodes.length).toBeGreaterThan(10);
    for (const op of all)
      for (const answer of op.answers.filter((a) => a.status >= 400))
        expect([op.id, answer.name, errorCodes]).toEqual([
          op.id,
          answer.name,
          expect.arrayContaining([answer.example.value.code]),
        ]);
  });
});

describe('replaying each request example gives its answer', () => {
  // Built just before the replay, so that no connection of the fixture's
  // sits idle while the contract is checked.
  beforeAll(async () => {
    fixture = await buildExampleFixture(server);
  }, 120_000);

  test.each(replayed.map((c) => [`${c.operation.id}: ${c.name}`, c] as const))(
    '%s',
    async (_, c) => {
      const reply = await send(c);
      dump.push({
        operation: c.operation.id,
        name: c.name,
        status: reply.status,
        body: reply.body,
      });
      const expected = c.answer.example.value;
      if (reply.status !== c.answer.status || !equal(normalize(reply.body), normalize(expected))) {
        throw new Error(
          `${c.operation.id} example ${c.name}: expected ${c.answer.status}, got ${reply.status}:\n${stringify(reply.body)}`,
        );
      }
    },
  );
});

/**
 * How to cause each example of the shared responses, which any operation may
 * give: the request, and the status it documents.
 */
const sharedReplays: Record<string, { status: number; send: () => Promise<Reply> }> = {
  'too-many-fields': {
    status: 400,
    send: () =>
      server.call(
        'GET',
        `/users/me?${Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&')}`,
        { as: fixture.users.get('hamlet@example.com') },
      ),
  },
  'missing-argument': {
    status: 400,
    send: () =>
      server.call('POST', '/fetch_api_key', {
        params: { username: 'hamlet@example.com' },
        encoding: 'json',
      }),
  },
  'incoming-webhook-bot': {
    status: 401,
    // King Hamlet's incoming webhook bot, made for this, asks who it is.
    send: async () => {
      const made = await server.call('POST', '/bots', {
        as: fixture.users.get('hamlet@example.com'),
        params: { full_name: 'Example Hook', short_name: 'examplehook', bot_type: 2 },
        encoding: 'json',
      });
      const bot = await server.services.db.read((db) =>
        db.user.findUniqueOrThrow({ where: { id: made.body.user_id } }),
      );
      return server.call('GET', '/users/me', { as: bot });
    },
  },
  'invalid-api-key': {
    status: 401,
    send: () =>
      server.call('GET', '/users/me', {
        as: { email: 'hamlet@example.com', apiKey: 'Zq8sV2pWcD4kLm9tRb7yXe3uNh6jFa1g' },
      }),
  },
  'no-organization': {
    status: 404,
    send: () =>
      server.call('GET', '/server_settings', { headers: { host: 'nowhere.localhost:9991' } }),
  },
  'rate-limited': {
    status: 429,
    // A server of its own allowing one request a minute from each address.
    send: () =>
      TestServer.using({ RATE_LIMIT_IP_REQUESTS: '1' }, async (limited) => {
        await limited.send('GET', '/server_settings');
        return limited.call('GET', '/server_settings');
      }),
  },
  'body-too-large': {
    status: 413,
    send: () =>
      server.call('POST', '/messages', {
        as: fixture.users.get('hamlet@example.com'),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'channel',
          to: 'general',
          topic: 'big',
          content: 'x'.repeat(11 * 1024 * 1024),
        }),
      }),
  },
  'plain-text-body': {
    status: 415,
    send: () =>
      server.call('POST', '/messages', {
        as: fixture.users.get('hamlet@example.com'),
        headers: { 'content-type': 'text/plain' },
        body: 'Hello',
      }),
  },
};

describe('the examples of the shared responses', () => {
  const shared = Object.entries<any>(document.components.responses).flatMap(([response, value]) =>
    Object.entries<any>(value.content?.['application/json']?.examples ?? {}).map(
      ([name, example]) => [`${response}: ${name}`, name, deref(example)] as const,
    ),
  );

  test.each(shared)('%s', async (_, name, example) => {
    const replay = sharedReplays[name];
    if (!replay)
      throw new Error(`no way to cause the shared example ${name}: add it to sharedReplays`);
    const reply = await replay.send();
    expect(reply.status).toBe(replay.status);
    expect(normalize(reply.body)).toEqual(normalize(example.value));
  });
});

function equal(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}

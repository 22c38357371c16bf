// Hostile requests for every operation of openapi.yaml, generated from the
// contract itself with fast-check: numbers past every range, Infinity, NUL
// characters, broken JSON, lone surrogates, long texts, loosely written ids
// and unknown parameters, in every body encoding. The server must answer each
// with JSON and never with a 5xx (a request left unanswered fails the test,
// naming it); and values it accepts are stored as sent. CI runs 1,500
// requests with a fixed seed;
// `npm run fuzz` runs many more with a random one (FUZZ_RUNS, FUZZ_SEED).
import fc from 'fast-check';
import { loadSpec, specPath, type OperationSpec } from '../src/http/spec';
import { TestServer, type Cast, type Encoding } from './support/server';
import { within } from './support/wait';

// The hostile requests test input handling, which no database changes: the
// PostgreSQL project sends a fifth of them, enough to reach every operation.
const RUNS = Number(
  process.env.FUZZ_RUNS ?? (process.env.TEST_DATABASE === 'postgresql' ? 300 : 1500),
);
const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : process.env.FUZZ_RANDOM
    ? Date.now() ^ (Math.random() * 0x7fffffff)
    : 20261124;

// Operations that would end the fuzzing user's session rather than test input handling.
const skipped = new Set(['deactivate-own-user']);

let server: TestServer;
let cast: Cast;
let operations: OperationSpec[];

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  operations = (await loadSpec(specPath)).operations.filter((op) => !skipped.has(op.operationId));
  // Something for ids to find: a channel, a message, a group.
  await server.ok('POST', '/users/me/subscriptions', {
    as: cast.admin,
    params: { subscriptions: [{ name: 'fuzz' }] },
  });
  await server.ok('POST', '/messages', {
    as: cast.admin,
    params: { type: 'stream', to: 'fuzz', topic: 'fuzz', content: 'target' },
  });
}, 60_000);
afterAll(() => server.stop());

/** Texts that have broken servers: as a form field, a query parameter or a path segment. */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1',
    '1e400',
    '-1e400',
    'NaN',
    'Infinity',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '9007199254740993',
    '2147483648',
    '0x10',
    '1.0',
    '1e0',
    '0b1',
    '+1',
    'null',
    'true',
    '[]',
    '{}',
    '[1e400]',
    '[null]',
    '[[[[[[[[[[]]]]]]]]]]',
    '{"a":',
    '"',
    '\u0000',
    'a\u0000b',
    '["\u0000"]',
    '\ud800',
    '%00',
    '../../etc/passwd',
    '\'; DROP TABLE "User"; --',
    'newest',
    'x'.repeat(70_000),
  ),
  fc.string({ maxLength: 30, unit: 'binary' }),
  fc.json({ maxDepth: 3 }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double().map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .array(fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constant(1e308)), { maxLength: 6 })
    .map((ids) => JSON.stringify(ids)),
);

interface HostileRequest {
  op: OperationSpec;
  path: string;
  params: Record<string, string>;
  encoding: Encoding;
}

/** One hostile request for `op`: every path parameter and a random subset of the others. */
function requestFor(op: OperationSpec): fc.Arbitrary<HostileRequest> {
  const pathNames = [...op.params.values()].filter((p) => p.in === 'path').map((p) => p.name);
  const otherNames = [...op.params.values()].filter((p) => p.in !== 'path').map((p) => p.name);
  const bodyless = op.method === 'GET' || op.method === 'DELETE';
  return fc
    .record({
      pathValues: fc.tuple(...pathNames.map(() => hostileText)),
      names: fc.subarray([...otherNames, 'unknown_parameter']),
      values: fc.array(hostileText, {
        minLength: otherNames.length + 1,
        maxLength: otherNames.length + 1,
      }),
      encoding: fc.constantFrom<Encoding[]>(
        ...((bodyless ? ['query'] : ['form', 'json', 'multipart', 'query']) as Encoding[]),
      ),
      rawPath: fc.boolean(),
    })
    .map(({ pathValues, names, values, encoding, rawPath }) => {
      let path = op.path;
      pathNames.forEach((name, i) => {
        const value = pathValues[i] || '1';
        // Mostly encoded as a client would; sometimes digits as they are.
        const segment = rawPath && /^[\w.+-]+$/.test(value) ? value : encodePath(value);
        path = path.replace(`{${name}}`, segment);
      });
      const params: Record<string, string> = {};
      names.forEach((name, i) => (params[name] = values[i]));
      return { op, path, params, encoding };
    });
}

/** `value` percent-encoded; a lone surrogate becomes its invalid UTF-8 bytes (%ED%A0%80). */
function encodePath(value: string): string {
  return value
    .split(/([\ud800-\udfff])/)
    .map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

/** The value of `text` in a JSON body: the JSON it spells, or the text itself. */
function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

describe('hostile requests for every operation', () => {
  test(`${RUNS} requests (seed ${SEED}) get JSON without a 5xx`, async () => {
    const arbitrary = fc.constantFrom(...operations).chain(requestFor);
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ op, path, params, encoding }) => {
        const sent =
          encoding === 'json'
            ? Object.fromEntries(Object.entries(params).map(([k, v]) => [k, jsonValue(v)]))
            : params;
        // send() fails on an answer that is not JSON.
        const res = await within(
          `an answer to ${op.method} ${path} (${encoding})`,
          server.send(op.method, path, {
            as: op.authenticated ? cast.admin : undefined,
            params: sent,
            encoding,
          }),
        );
        if (res.status >= 500)
          throw new Error(
            `${op.method} ${path} (${encoding}) answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
          );
        if (typeof res.body !== 'object' || res.body === null || !('result' in res.body))
          throw new Error(`${op.method} ${path} answered outside the envelope`);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);
});

/** Fails unless some generated value of `field`, which has valid values, was accepted: a read-back of none proves nothing. */
function expectSomeAccepted(field: string, accepted: number): void {
  if (accepted === 0)
    throw new Error(`no generated value of ${field} was accepted, so none was read back`);
}

describe('accepted values are stored as sent', () => {
  // The hostile requests above may have changed who may do what in the
  // organization (who may create groups, say): read-backs start afresh.
  beforeAll(async () => {
    await server.stop();
    ({ server, cast } = await TestServer.startWithCast());
  });

  const text = fc.string({ maxLength: 60, unit: 'grapheme' });
  const runs = Math.max(50, Math.round(RUNS / 20));

  test('a user group description reads back as sent', async () => {
    let n = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(text, async (description) => {
        const name = `fuzz group ${n++}`;
        const res = await server.send('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name, description, members: [cast.admin.id] },
        });
        if (res.status >= 500) throw new Error(JSON.stringify(res.body));
        if (res.status !== 200) return;
        accepted++;
        const groups = await server.call('GET', '/user_groups', { as: cast.admin });
        const group = groups.body.user_groups.find(
          (g: { id: number }) => g.id === res.body.group_id,
        );
        expect(group.description).toBe(description);
      }),
      { numRuns: runs, seed: SEED, endOnFailure: true },
    );
    expectSomeAccepted('user group description', accepted);
  }, 120_000);

  test('a status text reads back as sent, less the spaces around it', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(text, async (statusText) => {
        const res = await server.send('POST', '/users/me/status', {
          as: cast.member,
          params: { status_text: statusText, away: false },
        });
        if (res.status >= 500) throw new Error(JSON.stringify(res.body));
        if (res.status !== 200) return;
        accepted++;
        const read = await server.call('GET', `/users/${cast.member.id}/status`, {
          as: cast.member,
        });
        expect(read.body.status.status_text ?? '').toBe(statusText.trim());
      }),
      { numRuns: runs, seed: SEED, endOnFailure: true },
    );
    expectSomeAccepted('status_text', accepted);
  }, 120_000);

  test('an integer setting reads back as sent, or is refused', async () => {
    let accepted = 0;
    const number = fc.oneof(
      fc.integer(),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
      fc.constantFrom('1e400', '-1e400', '1.5', '1e3'),
    );
    await fc.assert(
      fc.asyncProperty(number, async (value) => {
        const res = await server.send('PATCH', '/realm', {
          as: cast.owner,
          params: { waiting_period_threshold: String(value) },
        });
        if (res.status >= 500) throw new Error(JSON.stringify(res.body));
        if (res.status !== 200) return;
        accepted++;
        const state = await server.call('POST', '/register', {
          as: cast.owner,
          params: { fetch_event_types: ['realm'] },
        });
        // Accepted only as an integer in range, and then stored as that number (1e3 is 1000).
        expect(state.body.realm_waiting_period_threshold).toBe(Number(String(value)));
      }),
      { numRuns: runs, seed: SEED, endOnFailure: true },
    );
    expectSomeAccepted('waiting_period_threshold', accepted);
  }, 120_000);
});

// Zulip's published operations (test/data/zulip-operations.tsv) against the
// contract and the running server: every one at or below the feature level
// the server advertises is in openapi.yaml, under Zulip's operationId, and is
// routed (a request without credentials is refused for its credentials or
// its parameters, never as an unknown endpoint). The families the contract
// leaves out, development-only endpoints and the push notification service's
// own, are absent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZULIP_FEATURE_LEVEL } from '../src/lib/constants';
import { document } from './support/examples';
import { TestServer } from './support/server';

interface ZulipOperation {
  method: string;
  path: string;
  operation: string;
  level: number;
  excluded: string;
}

const zulip: ZulipOperation[] = readFileSync(
  join(__dirname, 'data', 'zulip-operations.tsv'),
  'utf8',
)
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('method\t'))
  .map((line) => {
    const [method, path, operation, level, excluded = ''] = line.split('\t');
    return { method, path, operation, level: Number(level), excluded };
  });

/** A path with its parameters' names set aside: Zulip and the contract may name them apart. */
const shape = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

/** The contract's operationIds by method and path shape (two paths may share one shape). */
const ours = new Map<string, string[]>();
for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(document.paths))
  for (const [method, op] of Object.entries(item))
    if (op?.operationId) {
      const key = shape(method, path);
      ours.set(key, [...(ours.get(key) ?? []), op.operationId]);
    }

const owed = zulip.filter((op) => op.level <= ZULIP_FEATURE_LEVEL && op.excluded === '');

test('the list is read whole: Zulip operations of every kind, with their levels', () => {
  expect(zulip.length).toBeGreaterThan(150);
  expect(owed.length).toBeGreaterThan(130);
  for (const op of zulip) {
    expect([op.path, Number.isInteger(op.level)]).toEqual([op.path, true]);
    expect(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).toContain(op.method);
    expect(['', 'development', 'push-relay']).toContain(op.excluded);
  }
});

test.each(owed.map((op) => [`${op.method} ${op.path}`, op] as const))(
  '%s is in the contract under its Zulip name',
  (_, op) => {
    const ids = ours.get(shape(op.method, op.path)) ?? [];
    expect([op.method, op.path, ids.length > 0]).toEqual([op.method, op.path, true]);
    if (op.operation !== '-') expect(ids).toContain(op.operation);
  },
);

test('the left-out families are not in the contract', () => {
  const excluded = zulip.filter((op) => op.excluded !== '');
  expect(excluded.map((op) => op.excluded).sort()).toEqual(
    expect.arrayContaining(['development', 'push-relay']),
  );
  for (const op of excluded)
    expect([op.path, ours.has(shape(op.method, op.path))]).toEqual([op.path, false]);
});

describe('on a running server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await TestServer.start();
    // An organization at the server's address, so that its public operations have one to answer for.
    await server.createRealm();
  });
  afterAll(() => server.stop());

  /** The path with each parameter filled: an email address where one is named, else 1. */
  const filled = (path: string) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      name === 'email' ? 'nobody@example.com' : name === 'filename' ? 'file.txt' : '1',
    );

  test.each(owed.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s is routed: without credentials it is refused for them or for its parameters',
    async (_, op) => {
      const res = await server.call(op.method, filled(op.path));
      expect([op.method, op.path, [200, 400, 401].includes(res.status)]).toEqual([
        op.method,
        op.path,
        true,
      ]);
      expect(res.body.result).toBe(res.status === 200 ? 'success' : 'error');
    },
  );
});

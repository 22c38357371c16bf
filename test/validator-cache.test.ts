// The cache of compiled request validators (src/http/validators.ts): a start
// that compiles them writes the cache, a start with the same inputs loads it,
// the loaded validators judge every operation's requests exactly as the
// compiled ones do, validators compiled on first use (as tests start servers)
// are kept per operation, a damaged cache is only a slower start, and a server
// started without `lazy` (as `npm start` runs it) refuses a bad parameter by
// name.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../src/actions/realm/realms';
import { loadConfig } from '../src/config';
import { loadOperations, loadSpec, openContract, specModule, specPath } from '../src/http/spec';
import { RequestValidators, validatorCacheFile } from '../src/http/validators';
import { createLogger } from '../src/log';
import { startServer } from '../src/server';
import { createTestDatabase } from './support/database';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'validator-cache-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fresh() {
  const { api, operations, takeCompilers } = await loadSpec(specPath);
  return {
    validators: new RequestValidators(() => ({ api, takeCompilers })),
    ids: operations.map((op) => op.operationId),
    operations,
  };
}

/** Requests that pass and requests that fail each operation's schemas in different ways. */
function samples(params: string[]): Record<string, unknown>[] {
  const all = (value: unknown) => Object.fromEntries(params.map((name) => [name, value]));
  const inputs = [
    {},
    all('x'),
    all(7),
    all(-1.5),
    all(true),
    all(null),
    all([1, 'a']),
    all({ a: 1 }),
  ];
  return inputs.map((values) => ({
    path: {},
    query: values,
    header: {},
    cookie: {},
    requestBody: values,
  }));
}

test('validators loaded from the cache judge every request as the compiled ones do', async () => {
  const file = join(dir, 'same.js');
  const compiled = await fresh();
  expect(compiled.validators.prepare(compiled.ids, file)).toBe('compiled');
  const cached = await fresh();
  expect(cached.validators.prepare(cached.ids, file)).toBe('loaded');
  let checked = 0;
  for (const op of compiled.operations) {
    const ours = compiled.validators.of(op.operationId);
    const theirs = cached.validators.of(op.operationId);
    expect(theirs).toHaveLength(ours.length);
    expect(ours.length).toBeGreaterThan(0);
    for (const input of samples([...op.params.keys()])) {
      for (let i = 0; i < ours.length; i++) {
        const verdict = ours[i](structuredClone(input));
        expect([op.operationId, theirs[i](structuredClone(input)), theirs[i].errors]).toEqual([
          op.operationId,
          verdict,
          ours[i].errors,
        ]);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(compiled.ids.length * 8);
}, 60_000);

test('a damaged cache, or one missing an operation, is compiled anew and rewritten', async () => {
  const file = join(dir, 'damaged.js');
  writeFileSync(file, 'module.exports = {');
  const first = await fresh();
  expect(first.validators.prepare(first.ids, file)).toBe('compiled');
  expect(readFileSync(file, 'utf8')).toContain(JSON.stringify('get-events'));

  const partial = join(dir, 'partial.js');
  writeFileSync(partial, 'module.exports = { "get-events": [] };');
  const second = await fresh();
  expect(second.validators.prepare(second.ids, partial)).toBe('compiled');
  expect(second.validators.of('send-message').length).toBeGreaterThan(0);
}, 60_000);

test('validators compiled on first use are kept per operation, and a later start loads them', async () => {
  const folder = join(dir, 'operations');
  // How many times a start needed openapi-backend: only to compile.
  let opened = 0;
  const lazy = async () =>
    new RequestValidators(
      () => {
        opened += 1;
        return openContract(specPath);
      },
      undefined,
      folder,
    );
  const refused = { path: {}, query: {}, header: {}, cookie: {}, requestBody: { type: 7 } };
  const ours = (await lazy()).of('send-message');
  expect(ours.length).toBeGreaterThan(0);
  const file = join(folder, 'send-message.js');
  const written = readFileSync(file, 'utf8');
  expect(opened).toBe(1);
  const theirs = (await lazy()).of('send-message');
  expect(opened).toBe(1);
  expect(theirs).toHaveLength(ours.length);
  for (let i = 0; i < ours.length; i++)
    expect(theirs[i](structuredClone(refused))).toBe(ours[i](structuredClone(refused)));

  // What a later start uses is the file: one that accepts everything is taken as it is.
  writeFileSync(file, 'module.exports = [function () { return true; }];');
  const planted = (await lazy()).of('send-message');
  expect(planted).toHaveLength(1);
  expect(planted[0](structuredClone(refused))).toBe(true);

  // A damaged file is compiled anew and rewritten.
  writeFileSync(file, 'module.exports = [');
  expect((await lazy()).of('send-message')).toHaveLength(ours.length);
  expect(readFileSync(file, 'utf8')).toBe(written);
});

test('the operations a start reads from the cache are those of the contract', async () => {
  const { operations } = await loadSpec(specPath);
  expect(loadOperations(specPath)).toEqual(operations);
  // Read back from the cache file as well as made.
  expect(loadOperations(specPath)).toEqual(operations);
});

test('the cache is named by what the validators come from', () => {
  const copy = join(dir, 'openapi.yaml');
  writeFileSync(copy, readFileSync(specPath));
  expect(validatorCacheFile(copy, specModule)).toBe(validatorCacheFile(specPath, specModule));
  writeFileSync(copy, `${readFileSync(specPath, 'utf8')}\n# changed\n`);
  expect(validatorCacheFile(copy, specModule)).not.toBe(validatorCacheFile(specPath, specModule));
});

test('a server started with every validator ready refuses a bad parameter by name', async () => {
  // Twice: the first start may compile and write the cache, the second loads it.
  for (let start = 0; start < 2; start++) {
    const database = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent' });
    const server = await startServer(config, createLogger('silent'));
    try {
      const { owner } = await doCreateRealm(server.services, {
        name: 'Cache',
        owner: { email: 'owner@cache.test', fullName: 'O', password: null },
      });
      const auth = `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}`;
      const res = await fetch(`${server.url}/api/v1/messages?anchor=newest&num_before=x`, {
        headers: { authorization: auth },
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { msg: string };
      expect(body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
      expect(body.msg).toContain('num_before');
    } finally {
      await server.stop();
      await database.drop();
    }
  }
}, 60_000);

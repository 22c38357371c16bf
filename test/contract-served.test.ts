// The contract served by the server itself: GET /openapi.yaml and
// GET /openapi.json, without credentials, naming the server in `servers`.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { parse } from 'yaml';
import { specPath } from '../src/http/spec';
import { TestServer } from './support/server';

let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start({ EXTERNAL_URL: 'https://chat.example.net' });
});
afterAll(() => server.stop());

const contract = parse(readFileSync(specPath, 'utf8'));
const served = {
  ...contract,
  servers: [{ url: 'https://chat.example.net/api/v1', description: 'This server.' }],
};

test('GET /openapi.yaml is the contract as YAML, naming this server', async () => {
  const res = await fetch(`${server.url}/openapi.yaml`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
  expect(parse(await res.text())).toEqual(served);
});

test('GET /openapi.json is the same contract as JSON', async () => {
  const res = await fetch(`${server.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(await res.json()).toEqual(served);
});

test('is answered the same each time, with an ETag a client may revalidate', async () => {
  const first = await fetch(`${server.url}/openapi.json`);
  const second = await fetch(`${server.url}/openapi.json`);
  const etag = first.headers.get('etag');
  expect(etag).toMatch(/^"[\w-]+"$/);
  expect(second.headers.get('etag')).toBe(etag);
  expect(await second.text()).toBe(await first.text());
  // node:http, since fetch adds Cache-Control: no-cache to a conditional request.
  const again = await new Promise<number | undefined>((resolve, reject) => {
    get(`${server.url}/openapi.json`, { headers: { 'if-none-match': etag! } }, (res) =>
      resolve(res.resume().statusCode),
    ).on('error', reject);
  });
  expect(again).toBe(304);
  const yaml = await fetch(`${server.url}/openapi.yaml`, { method: 'HEAD' });
  expect(yaml.status).toBe(200);
  expect(yaml.headers.get('etag')).not.toBe(etag);
});

test('other methods get a 405 naming GET and HEAD', async () => {
  const res = await fetch(`${server.url}/openapi.json`, { method: 'POST' });
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toBe('GET, HEAD');
  expect(await res.json()).toEqual({
    result: 'error',
    msg: 'Method Not Allowed',
    allowed_methods: ['GET', 'HEAD'],
  });
});

test('the default servers entry is the configured address', async () => {
  await TestServer.using({}, async (plain) => {
    const res = await fetch(`${plain.url}/openapi.json`);
    expect(((await res.json()) as { servers: unknown }).servers).toEqual([
      { url: 'http://chat.test/api/v1', description: 'This server.' },
    ]);
  });
});

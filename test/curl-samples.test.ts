// The curl samples of openapi.yaml (`x-codeSamples`, which the docs at
// /api/docs show beside each operation), run with the real `curl` against a
// test server holding the example organization (test/support/example-fixture.ts).
// A sample is written for a reader: the server is https://chat.example.com,
// the credentials BOT_EMAIL:BOT_API_KEY, and IDs those of the example
// organization. Before running one, the test puts in the test server's
// address, King Hamlet's real credentials and the values the fixture picked
// at random (queue IDs); the answer must be a success that matches the
// operation's documented response.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { checkAgainstContract, TestServer } from './support/server';
import { buildExampleFixture, type ExampleFixture } from './support/example-fixture';
import { operations } from './support/examples';

const run = promisify(execFile);

/** The operations every reader starts with: each must have a curl sample. */
const core = [
  'send-message',
  'get-messages',
  'register-queue',
  'get-events',
  'update-message-flags',
  'subscribe',
  'upload-file',
];

/** The address and credentials a sample is written with. */
const SAMPLE_URL = 'https://chat.example.com';
const SAMPLE_CREDENTIALS = 'BOT_EMAIL:BOT_API_KEY';

const samples = operations().flatMap((op) =>
  op.codeSamples
    .filter((sample) => sample.label === 'curl')
    .map((sample) => ({ op, source: sample.source })),
);

let server: TestServer;
let fixture: ExampleFixture;
let folder: string;

beforeAll(async () => {
  server = await TestServer.start({ EXTERNAL_URL: 'http://localhost:9991' });
  fixture = await buildExampleFixture(server);
  // The files the upload samples name, in the folder the samples run in.
  folder = mkdtempSync(join(tmpdir(), 'curl-samples-'));
  writeFileSync(join(folder, 'notes.txt'), 'Minutes of the Monday meeting.\n');
}, 120_000);
afterAll(async () => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  await server?.stop();
});

test('each core operation has a curl sample', () => {
  const withSample = new Set(samples.map((s) => s.op.id));
  expect(core.filter((id) => !withSample.has(id))).toEqual([]);
});

test.each(samples.map((s) => [s.op.id, s] as const))(
  'the curl sample of %s succeeds as documented',
  async (_, { op, source }) => {
    // Written as Zulip writes its samples.
    expect(source).toMatch(/^curl -sSX [A-Z]+ /);
    expect(source).toContain(`${SAMPLE_URL}/api/v1${op.path.replace(/\{\w+\}/g, '')}`);
    expect(source).toContain(`-u ${SAMPLE_CREDENTIALS} `);

    const hamlet = fixture.users.get('hamlet@example.com')!;
    let command = source
      .replace(/^curl -sSX/, `curl -w '\\n%{http_code}' -sSX`)
      .replaceAll(SAMPLE_URL, server.url)
      .replaceAll(SAMPLE_CREDENTIALS, `${hamlet.email}:${hamlet.apiKey}`);
    for (const [named, picked] of fixture.standIns) command = command.replaceAll(named, picked);

    const { stdout } = await run('bash', ['-c', command], { cwd: folder, timeout: 30_000 });
    const cut = stdout.lastIndexOf('\n');
    const reply = { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
    expect([reply.status, reply.body.result, reply.body.msg]).toEqual([200, 'success', '']);
    const path = new URL(command.match(/https?:\/\/\S+/)![0]).pathname;
    await checkAgainstContract(op.method, path, { ...reply, headers: new Headers() });
  },
);

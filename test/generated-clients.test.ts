// Clients generated from openapi.yaml, each with its generator's default
// settings and no serializer of ours, run one scenario against a test server
// (test/clients/scenario.ts): a channel with a subscriber, a channel message
// and a direct message to two users, narrowed reads by every recipient, a
// reaction, an edit, and event queues. The clients are generated at test time
// into a folder of their own under test/clients/ (ignored by git) and
// type-checked there with the scenarios that use them:
// - @hey-api/openapi-ts, with its fetch client;
// - openapi-typescript for the types, openapi-fetch for the requests;
// - OpenAPI::Client (Perl, Debian's libopenapi-client-perl), a validating
//   client reading the contract the server serves at /openapi.json.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../src/paths';
import type { Scenario, ScenarioInput, ScenarioReport } from './clients/scenario';
import { TestServer, type Cast } from './support/server';

const run = promisify(execFile);
const clients = join(__dirname, 'clients');
const bin = (name: string) => join(projectRoot, 'node_modules', '.bin', name);
const spec = join(projectRoot, 'openapi.yaml');

let server: TestServer;
let cast: Cast;
let dir: string;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  dir = mkdtempSync(join(clients, '.run-'));
  await Promise.all([
    run(bin('openapi-ts'), ['--input', spec, '--output', join(dir, 'hey-api')], { cwd: dir }),
    run(
      bin('openapi-typescript'),
      [spec, '--output', join(dir, 'openapi-typescript', 'api.d.ts')],
      { cwd: dir },
    ),
  ]);
  for (const file of ['hey-api.scenario.ts', 'openapi-fetch.scenario.ts'])
    copyFileSync(join(clients, file), join(dir, file));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'commonjs',
        moduleResolution: 'node',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        esModuleInterop: true,
      },
      include: ['*.ts', 'hey-api/**/*.ts', 'openapi-typescript/*.ts'],
    }),
  );
}, 120_000);

afterAll(async () => {
  if (dir && !process.env.KEEP_CLIENTS) rmSync(dir, { recursive: true, force: true });
  await server?.stop();
});

function input(tag: string): ScenarioInput {
  const account = (user: Cast['admin']) => ({
    id: user.id,
    email: user.email,
    apiKey: user.apiKey,
  });
  return {
    apiUrl: `${server.url}/api/v1`,
    channel: `generated ${tag}`,
    alice: account(cast.admin),
    bob: account(cast.member),
    carol: account(cast.member2),
    tag,
  };
}

/** Checks what a client saw: every recipient got every message, the reaction and the edit, and the events. */
function check(report: ScenarioReport, { tag }: ScenarioInput) {
  const channelMessage = { id: report.channelMessageId, content: `<p>Hello from ${tag}</p>` };
  const directMessage = { id: report.directMessageId, content: `<p>Direct from ${tag}</p>` };
  expect(report.bobChannel).toEqual([channelMessage]);
  expect(report.bobDirect).toContainEqual(directMessage);
  expect(report.carolDirect).toContainEqual(directMessage);
  expect(report.edited).toEqual({
    content: `<p>Edited by ${tag}</p>`,
    reactions: [{ emoji_name: 'octopus', user_id: cast.member.id }],
  });
  const events = report.aliceEvents.map((e) =>
    Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined && v !== null)),
  );
  expect(events).toEqual(
    expect.arrayContaining([
      { type: 'message', message_id: report.channelMessageId },
      { type: 'message', message_id: report.directMessageId },
      { type: 'reaction', op: 'add', message_id: report.channelMessageId },
      { type: 'update_message', message_id: report.channelMessageId },
    ]),
  );
  expect(report.bobEventMessageIds).toEqual([report.channelMessageId, report.directMessageId]);
}

test('the generated TypeScript clients and their scenarios type-check', async () => {
  const errors = await run(bin('tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
  expect(errors).toBe('');
}, 120_000);

test('the client of @hey-api/openapi-ts runs the scenario', async () => {
  const scenario = (await import(join(dir, 'hey-api.scenario.ts'))) as Scenario;
  const given = input('hey-api');
  check(await scenario.run(given), given);
}, 60_000);

test('openapi-fetch with the types of openapi-typescript runs the scenario', async () => {
  const scenario = (await import(join(dir, 'openapi-fetch.scenario.ts'))) as Scenario;
  const given = input('openapi-fetch');
  check(await scenario.run(given), given);
}, 60_000);

/** Whether Perl and OpenAPI::Client are installed. */
async function perlClientInstalled(): Promise<boolean> {
  return run('perl', ['-MOpenAPI::Client', '-e', '1']).then(
    () => true,
    () => false,
  );
}

test('the Perl OpenAPI::Client, reading the served /openapi.json, runs the scenario', async () => {
  // .ci/run installs it; anywhere else its absence is a failure too, never a pass.
  if (!(await perlClientInstalled()))
    throw new Error(
      "perl -MOpenAPI::Client fails: install Debian's libopenapi-client-perl (apt-get install libopenapi-client-perl)",
    );
  const given = input('perl');
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('perl', [join(clients, 'scenario.pl')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`scenario.pl exited with ${code}: ${err}`)),
    );
    child.stdin.end(JSON.stringify(given));
  });
  check(JSON.parse(output) as ScenarioReport, given);
}, 60_000);

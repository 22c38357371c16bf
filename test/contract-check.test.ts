// The suite's own guard: every answer a test receives through server.call is
// checked against openapi.yaml (test/support/server.ts). This file shows that
// the check cannot be passed by a broken server: a handler that throws (a
// 500) fails it whatever the test expected, and so do an answer that does
// not match its schema and a status the contract does not list; a setup
// call that fails throws at the line that made it.
import { handlers } from '../src/handlers';
import { checkAgainstContract, TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
const original = handlers['get-own-user'];

beforeAll(async () => {
  // The route table binds handlers when the server starts: break one first.
  handlers['get-own-user'] = () => {
    throw new Error('a handler that throws');
  };
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(async () => {
  handlers['get-own-user'] = original;
  await server.stop();
});

test('a handler that throws fails the check, even where a test expects the failure', async () => {
  const raw = await server.send('GET', '/users/me', { as: cast.member });
  expect(raw.status).toBe(500);
  await expect(server.call('GET', '/users/me', { as: cast.member })).rejects.toThrow(
    /GET \/users\/me answered 500, a server failure/,
  );
});

test('an answer that does not match its schema fails the check', async () => {
  const reply = await server.send('GET', `/users/${cast.member.id}`, { as: cast.member });
  expect(reply.status).toBe(200);
  await checkAgainstContract('GET', `/users/${cast.member.id}`, reply);
  const broken = { ...reply, body: { ...reply.body, user: { ...reply.body.user, user_id: 'x' } } };
  await expect(checkAgainstContract('GET', `/users/${cast.member.id}`, broken)).rejects.toThrow(
    /does not match openapi\.yaml/,
  );
});

test('a status the contract does not list for the operation fails the check', async () => {
  const reply = await server.send('GET', `/users/${cast.member.id}`, { as: cast.member });
  await expect(
    checkAgainstContract('GET', `/users/${cast.member.id}`, { ...reply, status: 418 }),
  ).rejects.toThrow(/answered 418, which openapi.yaml does not list/);
});

test('a failing setup call throws at the line that made it', async () => {
  let error: Error | undefined;
  try {
    await server.ok('GET', '/users/987654', { as: cast.member });
  } catch (caught) {
    error = caught as Error;
  }
  expect(error?.message).toMatch(/^setup call GET \/users\/987654 answered 400/);
  expect(error?.stack?.split('\n')[1]).toContain('contract-check.test.ts');
});

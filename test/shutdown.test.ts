// Stopping the server (what SIGTERM does): waiting long-polls are answered,
// a request in flight finishes, new connections are refused, and the
// database is closed only afterwards, once what follows the messages sent
// has finished too.
import { request, type Server } from 'node:http';
import { doCreateRealm } from '../src/actions/realm/realms';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import { startServer } from '../src/server';
import { createTestDatabase } from './support/database';
import { TestServer } from './support/server';
import { waitFor } from './support/wait';

function send(url: string, auth: string, method = 'GET'): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { authorization: auth }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The connections `http` holds open. */
function connections(http: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    http.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** Resolves once `condition` holds; fails after the bounded wait. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  await waitFor('the server to reach the state to stop in', condition);
}

test('stop answers waiting polls, lets requests in flight finish, then closes', async () => {
  const database = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'silent',
    EVENT_HEARTBEAT_SECONDS: '30',
  });
  const server = await startServer(config, createLogger('silent'), { lazy: true });
  try {
    const { owner } = await doCreateRealm(server.services, {
      name: 'Stop',
      owner: { email: 'o@stop.test', fullName: 'O', password: 'pw' },
    });
    const auth = `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}`;
    expect((await send(`${server.url}/api/v1/users/me`, auth)).status).toBe(200); // warms the credentials cache
    await until(async () => (await connections(server.http)) === 0);
    const queue = await server.services.queues.create({
      userId: owner.id,
      realmId: owner.realmId,
      eventTypes: null,
      allPublicStreams: false,
      narrow: [],
      clientCapabilities: {},
      applyMarkdown: false,
      clientGravatar: false,
    });
    const poll = send(`${server.url}/api/v1/events?queue_id=${queue.id}&last_event_id=-1`, auth);

    // A request in flight: it changes the owner's row while another
    // transaction holds that row (SQLite: the whole database) as stop begins.
    let release!: () => void;
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const held = server.services.db.write(async (tx) => {
      await tx.user.update({ where: { id: owner.id }, data: { timezone: 'Asia/Tokyo' } });
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await holding;
    const inFlight = send(`${server.url}/api/v1/settings?timezone=Europe/Paris`, auth, 'PATCH');
    // Stop only once the server holds both: the poll parked, and the
    // connections of the poll and of the request in flight accepted.
    await until(async () => {
      const { waitingPolls } = await server.services.queues.stats();
      return waitingPolls === 1 && (await connections(server.http)) === 2;
    });

    const stopped = server.stop();
    const answered = await poll;
    expect(answered).toEqual({
      status: 200,
      body: { result: 'success', msg: '', queue_id: queue.id, events: [] },
    });

    release();
    await held;
    const finished = await inFlight;
    expect(finished).toEqual({ status: 200, body: { result: 'success', msg: '' } });
    await stopped;
    await expect(send(`${server.url}/api/v1/users/me`, auth)).rejects.toThrow(/ECONNREFUSED/);
  } finally {
    await server.stop();
    await database.drop();
  }
});

// A follower of a sent message (notification emails, Welcome Bot's answer)
// runs after the write's commit, on its own: a stop that comes meanwhile
// closes the database only once it has finished, so that its queries find
// the database open.
test('stop lets the followers of a sent message finish before closing the database', async () => {
  const server = await TestServer.start();
  const cast = await server.createCast();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let outcome: { messages: number } | { error: string } | undefined;
  server.services.messageSent.subscribe('a slow follower', async () => {
    await released;
    outcome = await server.services.db
      .read((db) => db.message.count())
      .then(
        (messages) => ({ messages }),
        (error: unknown) => ({ error: String(error) }),
      );
  });
  await server.ok('POST', '/messages', {
    as: cast.owner,
    params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'hello' },
  });
  const waitsForFollowers = jest.spyOn(server.services.messageSent, 'settled');
  let stopped = false;
  const stopping = server.stop().then(() => (stopped = true));
  await waitFor(
    'the stop to wait for the followers (or to end without them)',
    () => stopped || waitsForFollowers.mock.calls.length > 0,
  );
  release();
  await waitFor('the follower to read the database', () => outcome);
  expect(outcome).toEqual({ messages: expect.any(Number) });
  await stopping;
});

// Answers that once differed from Zulip's, each through HTTP: code playgrounds
// for Pygments' own language names, GET /users/me for a person, the keys of the
// register answer about the user, channel events without Zulip's internal
// flags, and the address of an organization at a subdomain of an IP address.
import { TestServer, type Cast } from './support/server';
import { eventsOf, register, subscribe, streamId } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
}, 120_000);
afterAll(() => server.stop());

describe('code playgrounds', () => {
  test("Zulip's own example, Python with a capital, is added and listed as sent", async () => {
    const res = await server.call('POST', '/realm/playgrounds', {
      as: cast.admin,
      params: {
        name: 'Python playground',
        pygments_language: 'Python',
        url_template: 'https://python.example.com?code={code}',
      },
    });
    expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
    const state = await register(server, cast.member, { fetch_event_types: ['realm_playgrounds'] });
    expect(state.realm_playgrounds).toContainEqual({
      id: res.body.id,
      name: 'Python playground',
      pygments_language: 'Python',
      url_template: 'https://python.example.com?code={code}',
    });
  });

  test('names with spaces and the punctuation of lexer names are accepted; others are not', async () => {
    for (const language of ['Objective-C++', 'Visual Basic .NET', 'F#', 'c,d'])
      expect(
        (
          await server.call('POST', '/realm/playgrounds', {
            as: cast.admin,
            params: {
              name: language,
              pygments_language: language,
              url_template: 'https://x.test/{code}',
            },
          })
        ).status,
      ).toBe(200);
    const refused = await server.call('POST', '/realm/playgrounds', {
      as: cast.admin,
      params: { name: 'X', pygments_language: 'Py!thon', url_template: 'https://x.test/{code}' },
    });
    expect(refused.body).toEqual({
      result: 'error',
      msg: 'Invalid characters in pygments language',
      code: 'BAD_REQUEST',
    });
  });
});

describe('GET /users/me', () => {
  test('a person is answered without bot_type and bot_owner_id', async () => {
    const res = await server.call('GET', '/users/me', { as: cast.member });
    expect(res.status).toBe(200);
    expect(res.body.is_bot).toBe(false);
    expect(res.body).not.toHaveProperty('bot_type');
    expect(res.body).not.toHaveProperty('bot_owner_id');
  });

  test('a bot is answered with its type and owner', async () => {
    const made = await server.call('POST', '/bots', {
      as: cast.member,
      params: { full_name: 'Me Bot', short_name: 'me-check' },
    });
    expect(made.status).toBe(200);
    const bot = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: made.body.user_id } }),
    );
    const res = await server.call('GET', '/users/me', { as: bot });
    expect(res.body).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: cast.member.id });
  });
});

describe('POST /register about the user', () => {
  test("realm_user carries Zulip's keys, is_billing_admin among them, and nothing of its own", async () => {
    const state = await register(server, cast.owner, { fetch_event_types: ['realm_user'] });
    expect(state.is_billing_admin).toBe(false);
    expect(state.is_owner).toBe(true);
    for (const key of ['role', 'avatar_version', 'can_create_users', 'can_change_user_emails'])
      expect([key, key in state]).toEqual([key, false]);
  });

  test('demo_organization_scheduled_deletion_date is absent, as for every organization that is not a demo', async () => {
    const state = await register(server, cast.member, { fetch_event_types: ['realm'] });
    expect(state).not.toHaveProperty('demo_organization_scheduled_deletion_date');
    expect(state.realm_name).toBe(cast.realm.name);
  });
});

describe('channel events', () => {
  test('archiving and unarchiving send create and delete events without internal flags', async () => {
    await subscribe(server, cast.member, ['flagless']);
    const id = await streamId(server, cast.member, 'flagless');
    const legacy = await register(server, cast.member2, { event_types: ['stream'] });
    expect((await server.call('DELETE', `/streams/${id}`, { as: cast.admin })).status).toBe(200);
    expect(
      (
        await server.call('PATCH', `/streams/${id}`, {
          as: cast.admin,
          params: { is_archived: false },
        })
      ).status,
    ).toBe(200);
    const events = await eventsOf(server, cast.member2, legacy.queue_id);
    const ops = events.filter((e) => e.op === 'create' || e.op === 'delete');
    expect(ops.map((e) => e.op)).toEqual(['delete', 'create']);
    for (const e of ops) {
      expect(e).not.toHaveProperty('for_archiving');
      expect(e).not.toHaveProperty('for_unarchiving');
    }
  });
});

describe('an organization at a subdomain of an IP address', () => {
  test("reports its own address, not the root organization's", async () => {
    await TestServer.using({ EXTERNAL_URL: 'http://127.0.0.1:9991' }, async (ip) => {
      const { owner } = await ip.createRealm('Team', 'team');
      const settings = await ip.call('GET', '/server_settings', {
        headers: { host: 'team.127.0.0.1:9991' },
      });
      expect(settings.body.realm_url).toBe('http://team.127.0.0.1:9991');
      const state = await ip.call('POST', '/register', {
        as: owner,
        params: { fetch_event_types: ['realm'] },
      });
      expect(state.body.realm_url).toBe('http://team.127.0.0.1:9991');
      await ip.createRealm('Root', '');
      const root = await ip.call('GET', '/server_settings');
      expect(root.body.realm_url).toBe('http://127.0.0.1:9991');
    });
  });
});

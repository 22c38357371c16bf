// Invitations through HTTP: sending them by email (read back from the
// outbox), reusable links, listing, resending and revoking them with Zulip's
// refusals, the invites_changed events, and joining through the emailed link:
// the account gets its role, channels and groups, the usual events go out, and
// a used, revoked or expired link gets a page saying so. Last, the daily limit
// of email invitations per organization (INVITATIONS_PER_DAY), on a server of
// its own with a small limit.
import type { User } from '../generated/prisma/sqlite/client';
import { loadConfig } from '../src/config';
import { Role, SystemGroup } from '../src/lib/constants';
import { readOutbox } from '../src/lib/mail/outbox';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let general: number;
let design: number;
let secret: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.owner, ['general', 'design'], {
    principals: [cast.owner.id, cast.admin.id, cast.member.id],
  });
  await subscribe(server, cast.owner, ['secret'], { invite_only: true });
  general = await streamId(server, cast.owner, 'general');
  design = await streamId(server, cast.owner, 'design');
  secret = await streamId(server, cast.owner, 'secret');
});
afterAll(() => server.stop());

function invite(as: User, params: Record<string, unknown>) {
  return server.call('POST', '/invites', { as, params });
}

function createLink(as: User, params: Record<string, unknown> = {}) {
  return server.call('POST', '/invites/multiuse', { as, params });
}

async function listInvites(as: User): Promise<any[]> {
  const res = await server.call('GET', '/invites', { as });
  expect(res.status).toBe(200);
  return res.body.invites;
}

/** The join link of the newest mail to `email` in the outbox. */
async function linkMailedTo(email: string): Promise<string> {
  const mails = await server.services.db.read((db) => readOutbox(db, email));
  expect(mails.length).toBeGreaterThan(0);
  const match = /http:\/\/chat\.test(\/join\/[A-Za-z0-9_-]+)/.exec(mails[mails.length - 1].text);
  expect(match).not.toBeNull();
  return match![1];
}

/** Opens a join page (a path such as /join/KEY) with GET, or POSTs its form. */
async function joinPage(
  path: string,
  form?: Record<string, string>,
): Promise<{ status: number; html: string; type: string }> {
  const res = await fetch(`${server.url}${path}`, {
    method: form ? 'POST' : 'GET',
    ...(form ? { body: new URLSearchParams(form) } : {}),
  });
  return { status: res.status, html: await res.text(), type: res.headers.get('content-type')! };
}

async function userByEmail(email: string) {
  return server.services.db.read((db) =>
    db.user.findUnique({
      where: { realmId_emailLower: { realmId: cast.realm.id, emailLower: email.toLowerCase() } },
    }),
  );
}

async function subscribedStreamIds(userId: number): Promise<number[]> {
  const rows = await server.services.db.read((db) =>
    db.subscription.findMany({ where: { userId, active: true }, orderBy: { streamId: 'asc' } }),
  );
  return rows.map((r) => r.streamId);
}

async function systemGroup(name: string): Promise<number> {
  const group = await server.services.db.read((db) =>
    db.userGroup.findFirstOrThrow({ where: { realmId: cast.realm.id, name, isSystemGroup: true } }),
  );
  return group.id;
}

describe('sending email invitations', () => {
  test('each address gets a mail with its join link, listed for the referrer and administrators', async () => {
    const res = await invite(cast.member, {
      invitee_emails: 'Ann Example <ann@example.org>, bob@example.org\ncarol@example.org',
      stream_ids: [general],
      invite_expires_in_minutes: 60,
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    for (const email of ['ann@example.org', 'bob@example.org', 'carol@example.org']) {
      const [mail] = await server.services.db.read((db) => readOutbox(db, email));
      expect(mail.subject).toBe('King Hamlet invited you to join Test organization');
      expect(mail.from).toBe('noreply@chat.test');
      expect(mail.text).toContain('http://chat.test/join/');
      expect(mail.html).toContain('href="http://chat.test/join/');
    }
    const mine = await listInvites(cast.member);
    expect(mine.map((i) => i.email).sort()).toEqual([
      'ann@example.org',
      'bob@example.org',
      'carol@example.org',
    ]);
    const now = Math.floor(Date.now() / 1000);
    expect(mine[0]).toEqual({
      id: expect.any(Number),
      invited_by_user_id: cast.member.id,
      invited: expect.any(Number),
      expiry_date: expect.any(Number),
      invited_as: Role.MEMBER,
      is_multiuse: false,
      email: expect.any(String),
      notify_referrer_on_join: true,
    });
    expect(Math.abs(mine[0].invited - now)).toBeLessThan(60);
    expect(mine[0].expiry_date - mine[0].invited).toBe(3600);
    // Administrators see them too; other members do not.
    const all = (await listInvites(cast.admin)).map((i) => i.id);
    for (const i of mine) expect(all).toContain(i.id);
    expect(await listInvites(cast.member2)).toEqual([]);
  });

  test('invites_changed reaches the administrators and the referrer', async () => {
    const queues = new Map<User, string>();
    for (const u of [cast.owner, cast.admin, cast.member, cast.member2])
      queues.set(u, (await register(server, u, { event_types: ['invites_changed'] })).queue_id);
    await invite(cast.member, { invitee_emails: 'dave@example.org' });
    for (const u of [cast.owner, cast.admin, cast.member])
      expect(withoutIds(await eventsOf(server, u, queues.get(u)!))).toEqual([
        { type: 'invites_changed' },
      ]);
    expect(await eventsOf(server, cast.member2, queues.get(cast.member2)!)).toEqual([]);
  });

  test('addresses with accounts are reported; valid ones are still invited', async () => {
    const some = await invite(cast.member, {
      invitee_emails: 'erin@example.org, cordelia@example.com',
    });
    expectError(
      some,
      400,
      'INVITATION_FAILED',
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      {
        errors: [['cordelia@example.com', 'Already has an account.', false]],
        sent_invitations: true,
        license_limit_reached: false,
        daily_limit_reached: false,
      },
    );
    expect((await listInvites(cast.member)).map((i) => i.email)).toContain('erin@example.org');
    const gone = await server.createUser(cast.realm, { email: 'gone@example.com' });
    await server.ok('DELETE', `/users/${gone.id}`, { as: cast.admin });
    expectError(
      await invite(cast.member, { invitee_emails: 'HAMLET@example.com,gone@example.com' }),
      400,
      'INVITATION_FAILED',
      "We weren't able to invite anyone.",
      {
        errors: [
          ['HAMLET@example.com', 'Already has an account.', false],
          ['gone@example.com', 'Account has been deactivated.', true],
        ],
        sent_invitations: false,
        license_limit_reached: false,
        daily_limit_reached: false,
      },
    );
    const before = (await listInvites(cast.admin)).length;
    expectError(
      await invite(cast.member, { invitee_emails: 'frank@example.org, nobody-at-all' }),
      400,
      'INVITATION_FAILED',
      "Some emails did not validate, so we didn't send any invitations.",
      {
        errors: [['nobody-at-all', 'Invalid address.', false]],
        sent_invitations: false,
        license_limit_reached: false,
        daily_limit_reached: false,
      },
    );
    expect(await listInvites(cast.admin)).toHaveLength(before);
  });

  test.each([
    ['guests', () => cast.guest, {}, 'BAD_REQUEST', 'Not allowed for guest users'],
    [
      'no address',
      () => cast.member,
      { invitee_emails: '' },
      'BAD_REQUEST',
      'You must specify at least one email address.',
    ],
    [
      'an unknown channel',
      () => cast.member,
      { stream_ids: [9999] },
      'BAD_REQUEST',
      'Invalid channel ID 9999. No invites were sent.',
    ],
    [
      'a private channel of others',
      () => cast.member,
      { stream_ids: [0] },
      'BAD_REQUEST',
      'Invalid channel ID SECRET. No invites were sent.',
    ],
    ['an unknown role', () => cast.member, { invite_as: 500 }, 'BAD_REQUEST', 'Invalid invite_as'],
    [
      'a moderator by a member',
      () => cast.member,
      { invite_as: Role.MODERATOR },
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    ],
    [
      'an owner by an administrator',
      () => cast.admin,
      { invite_as: Role.OWNER },
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization owner',
    ],
    [
      'an unknown group',
      () => cast.admin,
      { group_ids: [9999] },
      'BAD_REQUEST',
      'Invalid user group',
    ],
  ])('refuses %s', async (_, as, params: Record<string, unknown>, code, msg) => {
    const body: Record<string, unknown> = { invitee_emails: 'refused@example.org', ...params };
    if (Array.isArray(body.stream_ids) && body.stream_ids[0] === 0) body.stream_ids = [secret];
    expectError(await invite(as(), body), 400, code, msg.replace('SECRET', String(secret)));
  });

  test('the organization decides who may invite and who may subscribe others', async () => {
    const patch = (params: Record<string, unknown>) =>
      server.call('PATCH', '/realm', { as: cast.owner, params });
    const admins = await systemGroup(SystemGroup.ADMINISTRATORS);
    const members = await systemGroup(SystemGroup.MEMBERS);
    expect((await patch({ can_invite_users_group: { new: admins } })).status).toBe(200);
    try {
      expectError(
        await invite(cast.member, { invitee_emails: 'grace@example.org' }),
        400,
        'BAD_REQUEST',
        'Insufficient permission',
      );
    } finally {
      await patch({ can_invite_users_group: { new: members } });
    }
    // PATCH /realm does not take can_add_subscribers_group: set it in the database.
    const subscribers = (groupId: number) =>
      server.services.db.write((tx) =>
        tx.realm.update({
          where: { id: cast.realm.id },
          data: { canAddSubscribersGroupId: groupId },
        }),
      );
    await subscribers(admins);
    try {
      expectError(
        await invite(cast.member, { invitee_emails: 'grace@example.org', stream_ids: [general] }),
        400,
        'BAD_REQUEST',
        'You do not have permission to subscribe other users to channels.',
      );
      expect((await invite(cast.member, { invitee_emails: 'grace@example.org' })).status).toBe(200);
    } finally {
      await subscribers(members);
    }
  });
});

describe('joining with an emailed link', () => {
  test('creates the account in its role, channels and groups, once', async () => {
    const group = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'newcomers', description: 'New people', members: [cast.admin.id] },
    });
    expect(group.status).toBe(200);
    const groupId = group.body.group_id;
    const queue = (
      await register(server, cast.member2, { event_types: ['realm_user', 'user_group'] })
    ).queue_id;
    expect(
      (
        await invite(cast.admin, {
          invitee_emails: 'Heidi@Example.org',
          invite_as: Role.MODERATOR,
          stream_ids: [design],
          group_ids: [groupId],
        })
      ).status,
    ).toBe(200);
    const link = await linkMailedTo('heidi@example.org');

    const form = await joinPage(link);
    expect(form.status).toBe(200);
    expect(form.type).toBe('text/html; charset=utf-8');
    expect(form.html).toContain('Iago Admin invited you to join Test organization.');
    expect(form.html).toContain('Heidi@Example.org');
    expect(form.html).not.toMatch(/<script|src=/);

    const tooShort = await joinPage(link, { full_name: 'Heidi', password: '123' });
    expect(tooShort.status).toBe(400);
    expect(tooShort.html).toContain('The password must be at least 6 characters long.');

    const joined = await joinPage(link, { full_name: ' Heidi Klum ', password: 'heidi-password' });
    expect(joined.status).toBe(201);
    expect(joined.html).toContain('Your account Heidi@Example.org has been created.');
    const heidi = (await userByEmail('heidi@example.org'))!;
    expect(heidi).toMatchObject({ fullName: 'Heidi Klum', role: Role.MODERATOR, isActive: true });
    expect(await subscribedStreamIds(heidi.id)).toEqual([design]);
    const login = await server.call('POST', '/fetch_api_key', {
      params: { username: 'heidi@example.org', password: 'heidi-password' },
    });
    expect(login.status).toBe(200);
    const membership = await server.call('GET', `/user_groups/${groupId}/members/${heidi.id}`, {
      as: cast.member,
    });
    expect(membership.body.is_user_group_member).toBe(true);

    const events = await eventsOf(server, cast.member2, queue);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'realm_user',
        op: 'add',
        person: expect.objectContaining({ user_id: heidi.id, full_name: 'Heidi Klum', role: 300 }),
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'user_group',
        op: 'add_members',
        group_id: groupId,
        user_ids: [heidi.id],
      }),
    );

    // The link is used up, and no longer listed.
    const again = await joinPage(link);
    expect(again.status).toBe(404);
    expect(again.html).toContain('This invitation has already been used.');
    expect((await listInvites(cast.admin)).map((i) => i.email)).not.toContain('Heidi@Example.org');
  });

  test('default channels only when the invitation asks for them', async () => {
    expect(
      (
        await server.call('POST', '/default_streams', {
          as: cast.admin,
          params: { stream_id: general },
        })
      ).status,
    ).toBe(200);
    try {
      await invite(cast.member, { invitee_emails: 'ivan@example.org', stream_ids: [design] });
      await invite(cast.member, {
        invitee_emails: 'judy@example.org',
        stream_ids: [design],
        include_realm_default_subscriptions: true,
      });
      for (const email of ['ivan@example.org', 'judy@example.org'])
        expect(
          (
            await joinPage(await linkMailedTo(email), {
              full_name: 'New Person',
              password: 'long enough',
            })
          ).status,
        ).toBe(201);
      expect(await subscribedStreamIds((await userByEmail('ivan@example.org'))!.id)).toEqual([
        design,
      ]);
      expect(await subscribedStreamIds((await userByEmail('judy@example.org'))!.id)).toEqual([
        general,
        design,
      ]);
    } finally {
      await server.ok('DELETE', '/default_streams', {
        as: cast.admin,
        params: { stream_id: general },
      });
    }
  });

  test('unknown, revoked and expired keys get a page saying so', async () => {
    const unknown = await joinPage('/join/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('This invitation link is not valid.');

    await invite(cast.member, { invitee_emails: 'kim@example.org' });
    const link = await linkMailedTo('kim@example.org');
    const id = (await listInvites(cast.member)).find((i) => i.email === 'kim@example.org').id;
    expect((await server.call('DELETE', `/invites/${id}`, { as: cast.member })).status).toBe(200);
    const revoked = await joinPage(link, { full_name: 'Kim', password: 'kim-password' });
    expect(revoked.status).toBe(404);
    expect(revoked.html).toContain('This invitation has been revoked.');
    expect(await userByEmail('kim@example.org')).toBeNull();

    await invite(cast.member, { invitee_emails: 'leo@example.org' });
    const leo = await linkMailedTo('leo@example.org');
    await server.services.db.write((tx) =>
      tx.invite.updateMany({
        where: { email: 'leo@example.org' },
        data: { expiresAt: new Date(Date.now() - 1000) },
      }),
    );
    const expired = await joinPage(leo);
    expect(expired.status).toBe(404);
    expect(expired.html).toContain('This invitation has expired.');
    expect((await listInvites(cast.member)).map((i) => i.email)).not.toContain('leo@example.org');
  });
});

describe('resending and revoking email invitations', () => {
  test('resending mails the same link again', async () => {
    await invite(cast.member, { invitee_emails: 'mia@example.org' });
    const id = (await listInvites(cast.member)).find((i) => i.email === 'mia@example.org').id;
    const res = await server.call('POST', `/invites/${id}/resend`, { as: cast.member });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const mails = await server.services.db.read((db) => readOutbox(db, 'mia@example.org'));
    expect(mails).toHaveLength(2);
    expect(mails[1].text).toBe(mails[0].text);
    // An administrator may resend it; another member may not.
    expect((await server.call('POST', `/invites/${id}/resend`, { as: cast.admin })).status).toBe(
      200,
    );
    expectError(
      await server.call('POST', `/invites/${id}/resend`, { as: cast.member2 }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    );
    expectError(
      await server.call('POST', '/invites/99999/resend', { as: cast.member }),
      400,
      'BAD_REQUEST',
      'No such invitation',
    );
  });

  test('revoking: by the referrer or an administrator, once', async () => {
    await invite(cast.member, { invitee_emails: 'ned@example.org, ola@example.org' });
    const mine = await listInvites(cast.member);
    const ned = mine.find((i) => i.email === 'ned@example.org').id;
    const ola = mine.find((i) => i.email === 'ola@example.org').id;
    expectError(
      await server.call('DELETE', `/invites/${ned}`, { as: cast.member2 }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    );
    const queue = (await register(server, cast.member, { event_types: ['invites_changed'] }))
      .queue_id;
    expect((await server.call('DELETE', `/invites/${ned}`, { as: cast.admin })).status).toBe(200);
    expect(withoutIds(await eventsOf(server, cast.member, queue))).toEqual([
      { type: 'invites_changed' },
    ]);
    expect((await server.call('DELETE', `/invites/${ola}`, { as: cast.member })).status).toBe(200);
    expectError(
      await server.call('DELETE', `/invites/${ola}`, { as: cast.member }),
      400,
      'BAD_REQUEST',
      'No such invitation',
    );
    expect((await listInvites(cast.member)).map((i) => i.id)).not.toContain(ned);
    // An owner's invitation is only for owners to revoke.
    await invite(cast.owner, { invitee_emails: 'pat@example.org', invite_as: Role.OWNER });
    const pat = (await listInvites(cast.owner)).find((i) => i.email === 'pat@example.org').id;
    expectError(
      await server.call('DELETE', `/invites/${pat}`, { as: cast.admin }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization owner',
    );
  });
});

describe('reusable links', () => {
  test('administrators create them; anyone may join with one until it is revoked', async () => {
    expectError(await createLink(cast.member), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await createLink(cast.guest), 400, 'BAD_REQUEST', 'Not allowed for guest users');
    expectError(
      await createLink(cast.admin, { invite_as: Role.OWNER }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization owner',
    );
    expectError(
      await createLink(cast.admin, { stream_ids: [9999] }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID 9999. No invites were sent.',
    );
    const created = await createLink(cast.admin, {
      invite_as: Role.GUEST,
      stream_ids: [general],
      invite_expires_in_minutes: null,
    });
    expect(created.body).toEqual({
      result: 'success',
      msg: '',
      invite_link: expect.stringMatching(/^http:\/\/chat\.test\/join\/[A-Za-z0-9_-]{32}$/),
    });
    const url: string = created.body.invite_link;
    const path = new URL(url).pathname;
    const listed = (await listInvites(cast.admin)).find((i) => i.is_multiuse);
    expect(listed).toEqual({
      id: expect.any(Number),
      invited_by_user_id: cast.admin.id,
      invited: expect.any(Number),
      expiry_date: null,
      invited_as: Role.GUEST,
      is_multiuse: true,
      link_url: url,
    });

    const form = await joinPage(path);
    expect(form.html).toContain('name="email"');
    const bad = await joinPage(path, {
      email: 'not an address',
      full_name: 'Q',
      password: 'q-password',
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Enter a valid email address.');
    for (const email of ['quinn@example.org', 'rosa@example.org']) {
      const joined = await joinPage(path, {
        email,
        full_name: 'New Person',
        password: 'long enough',
      });
      expect(joined.status).toBe(201);
      const user = (await userByEmail(email))!;
      expect(user.role).toBe(Role.GUEST);
      expect(await subscribedStreamIds(user.id)).toEqual([general]);
    }
    const taken = await joinPage(path, {
      email: 'rosa@example.org',
      full_name: 'Rosa',
      password: 'long enough',
    });
    expect(taken.status).toBe(400);
    expect(taken.html).toContain('rosa@example.org already has an account in this organization.');

    expectError(
      await server.call('DELETE', `/invites/${listed.id}`, { as: cast.admin }),
      400,
      'BAD_REQUEST',
      'No such invitation',
    );
    expectError(
      await server.call('DELETE', `/invites/multiuse/${listed.id}`, { as: cast.member }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    );
    expect(
      (await server.call('DELETE', `/invites/multiuse/${listed.id}`, { as: cast.admin })).body,
    ).toEqual({ result: 'success', msg: '' });
    expectError(
      await server.call('DELETE', `/invites/multiuse/${listed.id}`, { as: cast.admin }),
      400,
      'BAD_REQUEST',
      'Invitation has already been revoked',
    );
    const revoked = await joinPage(path);
    expect(revoked.status).toBe(404);
    expect(revoked.html).toContain('This invitation has been revoked.');
    expect((await listInvites(cast.admin)).some((i) => i.is_multiuse)).toBe(false);
  });
});

describe('the daily invitation limit', () => {
  const LIMIT = 4;
  const dailyLimitReached = (res: { status: number; body: any }) =>
    expectError(
      res,
      400,
      'INVITATION_FAILED',
      'To protect users, this server limits how many invitations an organization can send in one day. The limit has been reached, so no invitations were sent.',
      {
        errors: [],
        sent_invitations: false,
        license_limit_reached: false,
        daily_limit_reached: true,
      },
    );
  let limited: TestServer;
  let lear: Cast;

  beforeAll(async () => {
    ({ server: limited, cast: lear } = await TestServer.startWithCast({
      INVITATIONS_PER_DAY: String(LIMIT),
    }));
  });
  afterAll(() => limited?.stop());

  const inviteOn = (as: User, emails: string) =>
    limited.call('POST', '/invites', { as, params: { invitee_emails: emails } });
  const resend = (as: User, id: number) => limited.call('POST', `/invites/${id}/resend`, { as });
  const listed = async () => {
    const res = await limited.call('GET', '/invites', { as: lear.admin });
    expect(res.status).toBe(200);
    return res.body.invites as any[];
  };
  const outbox = () => limited.services.db.read((db) => readOutbox(db));
  /** Moves every invitation of the organization back by a day and a minute. */
  const aDayPasses = () =>
    limited.services.db.write(async (tx) => {
      for (const row of await tx.invite.findMany({ where: { realmId: lear.realm.id } }))
        await tx.invite.update({
          where: { id: row.id },
          data: { invitedAt: new Date(row.invitedAt.getTime() - 24 * 3600_000 - 60_000) },
        });
    });

  test('counts every address of the organization; past it nothing is sent, links still work', async () => {
    // Three addresses by two users: one organization's count.
    expect((await inviteOn(lear.member, 'ann@example.org, bob@example.org')).status).toBe(200);
    expect((await inviteOn(lear.admin, 'cat@example.org')).status).toBe(200);
    const invites = await listed();
    const mails = await outbox();
    expect(mails).toHaveLength(3);

    // Two more would make five: neither is invited, nor mailed.
    dailyLimitReached(await inviteOn(lear.member, 'dan@example.org, eve@example.org'));
    // An address that has an account counts too, as in Zulip.
    dailyLimitReached(await inviteOn(lear.member, 'dan@example.org, cordelia@example.com'));
    expect(await listed()).toEqual(invites);
    expect(await outbox()).toEqual(mails);

    // Reusable links are not limited.
    const link = await limited.call('POST', '/invites/multiuse', { as: lear.admin });
    expect(link.status).toBe(200);
    expect((await listed()).filter((i) => i.is_multiuse)).toHaveLength(1);

    // The fourth reaches the limit exactly; then even one more is refused.
    expect((await inviteOn(lear.member, 'dan@example.org')).body).toEqual({
      result: 'success',
      msg: '',
    });
    dailyLimitReached(await inviteOn(lear.owner, 'eve@example.org'));
    expect(await limited.services.db.read((db) => readOutbox(db, 'eve@example.org'))).toEqual([]);

    // A revoked invitation was still sent: it keeps counting.
    const dan = (await listed()).find((i) => i.email === 'dan@example.org');
    expect((await limited.call('DELETE', `/invites/${dan.id}`, { as: lear.admin })).status).toBe(
      200,
    );
    dailyLimitReached(await inviteOn(lear.admin, 'eve@example.org'));

    // Another organization has a limit of its own.
    const other = await limited.createRealm('Other organization', 'other');
    expect((await inviteOn(other.owner, 'zoe@example.org')).status).toBe(200);
  });

  test('a resend counts as one invitation', async () => {
    // The organization is at the limit (the test above).
    const ann = (await listed()).find((i) => i.email === 'ann@example.org');
    const before = await outbox();
    dailyLimitReached(await resend(lear.member, ann.id));
    expect(await outbox()).toEqual(before);
    expect((await listed()).find((i) => i.id === ann.id)).toEqual(ann);

    // A day later the count starts again: the resend is the first of the
    // day, and it moves the invitation's time to now.
    await aDayPasses();
    const res = await resend(lear.member, ann.id);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await limited.services.db.read((db) => readOutbox(db, 'ann@example.org'))).toHaveLength(
      2,
    );
    const resent = (await listed()).find((i) => i.id === ann.id);
    expect(Math.abs(resent.invited - Date.now() / 1000)).toBeLessThan(60);
    // One counted, three left.
    expect(
      (await inviteOn(lear.member, 'eve@example.org, fay@example.org, gus@example.org')).status,
    ).toBe(200);
    dailyLimitReached(await inviteOn(lear.member, 'hal@example.org'));
    dailyLimitReached(await resend(lear.member, ann.id));
  });

  test('requests at the same moment do not pass the limit together', async () => {
    await aDayPasses();
    const answers = await Promise.all(
      ['ida', 'jay', 'kim', 'lou', 'max', 'ned'].map((name) =>
        inviteOn(lear.member, `${name}@example.org`),
      ),
    );
    expect(answers.filter((res) => res.status === 200)).toHaveLength(LIMIT);
    for (const res of answers.filter((res) => res.status !== 200)) dailyLimitReached(res);
  });

  test('the limit is a setting of at least 1, 3000 by default', () => {
    expect(loadConfig({}).invitationsPerDay).toBe(3000);
    expect(loadConfig({ INVITATIONS_PER_DAY: '25' }).invitationsPerDay).toBe(25);
    for (const bad of ['0', '-3', '2.5', 'many'])
      expect(() => loadConfig({ INVITATIONS_PER_DAY: bad })).toThrow(
        `INVITATIONS_PER_DAY must be an integer of at least 1, not "${bad}"`,
      );
  });
});

// The organization the examples of openapi.yaml are written for: "Lear & Co.",
// built on an empty database in a fixed order, so that every ID an example
// names is the one this creates, on SQLite and PostgreSQL alike. Everything
// after the accounts goes through HTTP, as a client would.
//
// Users: 1 Desdemona (owner), 2 Iago (administrator, who may create users), 3 Shiva (moderator),
// 4 King Hamlet (member; the examples' default sender), 5 Cordelia (member),
// 6 Othello (member), 7 Polonius (guest), 8 Prospero (deactivated),
// 9 Laertes (member, deactivated by the examples).
// User groups: 1-8 the system groups, 11 design-team (Hamlet, Cordelia),
// 14 leadership (Desdemona, Iago; administers the leadership channel),
// 17 hiring-committee (Iago, Shiva); the others are the anonymous groups
// holding each new group's settings (its creator).
// Channels: 1 general (everyone), 2 design (Iago, Hamlet, Cordelia, Othello),
// 3 leadership (private: Desdemona, Iago), 4 old-projects (Iago, Hamlet),
// 5 random (Hamlet, Othello).
// Messages 1-12 (see `messages` below); drafts 1-2, scheduled messages 1-2
// and a navigation view of Hamlet; custom profile fields 1-2; the custom
// emoji `lear_crown`; one upload; statuses, presence and reactions.
// Event queues: two of Hamlet's, whose random IDs stand in for the ones the
// examples name (see `standIns`). Last, a deactivated organization, Zephyr,
// at zephyr.localhost:9991, with its owner (user 10). Then Iago's channel
// folders 1 Frontend and 2 Backend, Hamlet's saved snippet 1 and his
// reminder 3 (a scheduled message), and invitations: 1 Iago's of
// regan@example.com, 2 Iago's reusable link, 3 Hamlet's of edmund@example.com;
// Lear & Co.'s linkifiers 1 (`#123` links an issue) and 2 (commit hashes),
// default channel group 1, Newcomers (design, random), and Hamlet's alert
// words `castle` and `Elsinore`. Last, export 1, by Iago, and leadership as
// the channel that reports of messages go to.
import { runningExports } from '../../src/actions/export/realm-export';
import { doCreateRealm } from '../../src/actions/realm/realms';
import { doChangeServerPermission } from '../../src/actions/users/server-permissions';
import { Role } from '../../src/lib/constants';
import type { User } from '../../generated/prisma/sqlite/client';
import type { TestServer } from './server';

/** A 1x1 transparent PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The queue IDs the examples name, each standing for a queue the fixture registers. */
export const EXAMPLE_QUEUE_IDS = {
  /** Hamlet's queue of message events, holding message 12. */
  messages: '2c3b5a1e-7f64-4d2b-9a8e-5b1f0c6d7e81',
  /** Hamlet's second queue, which the delete-queue example removes. */
  toDelete: '9e0d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
};

/** The path (after the organization's ID) the examples give Cordelia's upload, logo-draft.png. */
export const EXAMPLE_UPLOAD_PATH = '4f1e6a9c2b3d5e7f8a0b1c2d/logo-draft.png';

/** The built organization: its users by email, and the stand-ins for random values. */
export interface ExampleFixture {
  users: Map<string, User>;
  /** Values the examples name -> the values the server picked in their place. */
  standIns: Map<string, string>;
}

const people: { email: string; fullName: string; role: number }[] = [
  { email: 'iago@example.com', fullName: 'Iago', role: Role.ADMINISTRATOR },
  { email: 'shiva@example.com', fullName: 'Shiva', role: Role.MODERATOR },
  { email: 'hamlet@example.com', fullName: 'King Hamlet', role: Role.MEMBER },
  { email: 'cordelia@example.com', fullName: "Cordelia, Lear's daughter", role: Role.MEMBER },
  { email: 'othello@example.com', fullName: 'Othello, the Moor of Venice', role: Role.MEMBER },
  { email: 'polonius@example.com', fullName: 'Polonius', role: Role.GUEST },
  { email: 'prospero@example.com', fullName: 'Prospero from The Tempest', role: Role.MEMBER },
  { email: 'laertes@example.com', fullName: 'Laertes', role: Role.MEMBER },
];

/** Builds the organization on `server`, whose database must be empty. */
export async function buildExampleFixture(server: TestServer): Promise<ExampleFixture> {
  const users = new Map<string, User>();
  const { realm, owner } = await doCreateRealm(server.services, {
    name: 'Lear & Co.',
    stringId: '',
    owner: {
      email: 'desdemona@example.com',
      fullName: 'Desdemona',
      password: 'desdemona-password',
    },
  });
  users.set(owner.email, owner);
  for (const person of people) {
    const user = await server.createUser(realm, {
      ...person,
      password: `${person.email.split('@')[0]}-password`,
    });
    users.set(user.email, user);
  }
  const user = (name: string) => users.get(`${name}@example.com`)!;
  const id = (name: string) => user(name).id;
  // Iago may create accounts (POST /users).
  users.set(
    'iago@example.com',
    await doChangeServerPermission(server.services, user('iago'), 'can_create_users', true),
  );

  /** Sends a request that must succeed; returns the answer's body. */
  const ok = async (
    as: string,
    method: string,
    path: string,
    params: Record<string, unknown> = {},
  ): Promise<any> => {
    const res = await server.call(method, path, {
      as: user(as),
      params,
      encoding: method === 'GET' ? 'query' : 'json',
    });
    if (res.status !== 200)
      throw new Error(`fixture: ${method} ${path} failed: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  // User groups 11, 14 and 17.
  await ok('iago', 'POST', '/user_groups/create', {
    name: 'design-team',
    description: 'The people who draw',
    members: ['hamlet', 'cordelia'].map(id),
  });
  await ok('desdemona', 'POST', '/user_groups/create', {
    name: 'leadership',
    description: 'Who decides',
    members: ['desdemona', 'iago'].map(id),
  });
  await ok('iago', 'POST', '/user_groups/create', {
    name: 'hiring-committee',
    description: 'Interviews candidates',
    members: ['iago', 'shiva'].map(id),
  });

  // Channels 1-5.
  const active = [
    'desdemona',
    'iago',
    'shiva',
    'hamlet',
    'cordelia',
    'othello',
    'polonius',
    'laertes',
  ];
  await ok('desdemona', 'POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'general', description: 'Everyone at Lear & Co.' }],
    principals: active.map(id),
  });
  await ok('iago', 'POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'design', description: 'Logos, mockups and the style guide' }],
    principals: ['iago', 'hamlet', 'cordelia', 'othello'].map(id),
  });
  await ok('desdemona', 'POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'leadership', description: 'Plans and budgets' }],
    principals: ['desdemona', 'iago'].map(id),
    invite_only: true,
    // The leadership group administers it.
    can_administer_channel_group: 14,
  });
  await ok('iago', 'POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'old-projects', description: 'Projects we finished' }],
    principals: ['iago', 'hamlet'].map(id),
  });
  await ok('hamlet', 'POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'random', description: 'Anything goes' }],
    principals: ['hamlet', 'othello'].map(id),
  });

  // Custom profile fields 1-2, and the custom emoji.
  await ok('iago', 'POST', '/realm/profile_fields', {
    name: 'Phone number',
    hint: 'Including the country code',
    field_type: 1,
  });
  await ok('iago', 'POST', '/realm/profile_fields', {
    name: 'Pronouns',
    hint: 'What you want to be called',
    field_type: 8,
  });
  const emoji = await server.call('POST', '/realm/emoji/lear_crown', {
    as: user('desdemona'),
    encoding: 'multipart',
    files: { filename: { name: 'lear_crown.png', content: TINY_PNG, type: 'image/png' } },
  });
  if (emoji.status !== 200) throw new Error(`fixture: emoji: ${JSON.stringify(emoji.body)}`);

  // Cordelia's upload, linked from message 3.
  const upload = await server.call('POST', '/user_uploads', {
    as: user('cordelia'),
    encoding: 'multipart',
    files: { filename: { name: 'logo-draft.png', content: TINY_PNG, type: 'image/png' } },
  });
  if (upload.status !== 200) throw new Error(`fixture: upload: ${JSON.stringify(upload.body)}`);

  // Messages 1-11.
  const channel = (as: string, to: string, topic: string, content: string) =>
    ok(as, 'POST', '/messages', { type: 'channel', to, topic, content, read_by_sender: true });
  const direct = (as: string, to: string[], content: string) =>
    ok(as, 'POST', '/messages', {
      type: 'direct',
      to: to.map(id),
      content,
      read_by_sender: true,
    });
  await channel(
    'desdemona',
    'general',
    'welcome',
    'Welcome to **Lear & Co.**! Introduce yourself in this topic.',
  );
  await channel(
    'hamlet',
    'general',
    'welcome',
    "Hello everyone, I'm Hamlet. I work on the mobile app.",
  );
  await channel(
    'cordelia',
    'design',
    'new logo',
    `The new logo draft is ready: [logo-draft.png](${upload.body.url})`,
  );
  await channel(
    'hamlet',
    'design',
    'new logo',
    "@**Cordelia, Lear's daughter** I like it, especially the colours.",
  );
  await direct('hamlet', ['cordelia'], 'Are we still on for lunch at noon?');
  await direct('cordelia', ['hamlet'], 'Yes, see you at the café!');
  await direct(
    'othello',
    ['hamlet', 'cordelia'],
    'Can one of you review the release notes before Friday?',
  );
  await channel('iago', 'leadership', 'budget', 'The 2027 budget is due next week.');
  await channel('cordelia', 'general', 'welcome', 'Hi all, Cordelia here: design and brand.');
  await channel('hamlet', 'design', 'fonts', 'The headings use Helvetica.');
  await channel('hamlet', 'general', 'lunch', "Who's up for lunch on Friday?");

  // Hamlet has read messages 1-6, and starred message 3.
  await ok('hamlet', 'POST', '/messages/flags', {
    messages: [1, 2, 3, 4, 5, 6],
    op: 'add',
    flag: 'read',
  });
  await ok('hamlet', 'POST', '/messages/flags', { messages: [3], op: 'add', flag: 'starred' });

  // Reactions.
  await ok('cordelia', 'POST', '/messages/2/reactions', { emoji_name: 'wave' });
  await ok('hamlet', 'POST', '/messages/3/reactions', { emoji_name: 'heart' });
  await ok('othello', 'POST', '/messages/3/reactions', { emoji_name: 'lear_crown' });

  // Hamlet's drafts 1-2, scheduled messages 1-2 and navigation view.
  await ok('hamlet', 'POST', '/drafts', {
    drafts: [
      {
        type: 'stream',
        to: [2],
        topic: 'new logo',
        content: 'Could we try a darker blue?',
        timestamp: 1764576000,
      },
      {
        type: 'private',
        to: [id('cordelia')],
        topic: '',
        content: 'Running five minutes late.',
        timestamp: 1764579600,
      },
    ],
  });
  await ok('hamlet', 'POST', '/scheduled_messages', {
    type: 'stream',
    to: 1,
    topic: 'standup',
    content: 'Reminder: standup moves to 10:00 from Monday.',
    scheduled_delivery_timestamp: 1924992000,
  });
  await ok('hamlet', 'POST', '/scheduled_messages', {
    type: 'direct',
    to: [id('cordelia')],
    content: 'Happy birthday, Cordelia!',
    scheduled_delivery_timestamp: 1925078400,
  });
  await ok('hamlet', 'POST', '/navigation_views', {
    fragment: 'narrow/channel/2-design',
    is_pinned: true,
    name: 'Design work',
  });

  // Statuses and presence.
  await ok('cordelia', 'POST', '/users/me/status', {
    status_text: 'In a meeting',
    emoji_name: 'calendar',
  });
  await ok('cordelia', 'POST', '/users/me/presence', { status: 'active' });
  await ok('hamlet', 'POST', '/users/me/presence', { status: 'active' });

  // Prospero has left.
  await ok('desdemona', 'DELETE', `/users/${id('prospero')}`);

  // Hamlet's event queues, then message 12, the one event of the first.
  const standIns = new Map<string, string>();
  const messagesQueue = await ok('hamlet', 'POST', '/register', { event_types: ['message'] });
  standIns.set(EXAMPLE_QUEUE_IDS.messages, messagesQueue.queue_id);
  const otherQueue = await ok('hamlet', 'POST', '/register', { event_types: ['message'] });
  standIns.set(EXAMPLE_QUEUE_IDS.toDelete, otherQueue.queue_id);
  await channel('othello', 'general', 'welcome', "Hi, I'm Othello: I look after sales.");

  // Last, so that no ID above depends on it: a second organization, at
  // zephyr.localhost:9991 (user 10, its owner), which the deactivate-realm
  // example deactivates before any example shows it deactivated.
  const zephyr = await doCreateRealm(server.services, {
    name: 'Zephyr',
    stringId: 'zephyr',
    owner: { email: 'starnine@example.com', fullName: 'Starnine', password: 'starnine-password' },
  });
  users.set(zephyr.owner.email, zephyr.owner);

  // Added after the rest, so that no ID above moves: Iago's channel folders
  // 1 Frontend and 2 Backend, holding no channel.
  await ok('iago', 'POST', '/channel_folders/create', {
    name: 'Frontend',
    description: 'Channels for the **web** and mobile apps.',
  });
  await ok('iago', 'POST', '/channel_folders/create', { name: 'Backend', description: '' });
  // Hamlet's saved snippet 1.
  await ok('hamlet', 'POST', '/saved_snippets', {
    title: 'Meeting notes',
    content: '**Attendees:**\n**Decisions:**',
  });
  // Hamlet's reminder of Othello's message 7 (scheduled message 3).
  await ok('hamlet', 'POST', '/reminders', {
    message_id: 7,
    scheduled_delivery_timestamp: 1925164800,
    note: 'Review the release notes.',
  });
  // Invitations 1-3.
  await ok('iago', 'POST', '/invites', { invitee_emails: 'regan@example.com', stream_ids: [1] });
  await ok('iago', 'POST', '/invites/multiuse', { invite_expires_in_minutes: null });
  await ok('hamlet', 'POST', '/invites', {
    invitee_emails: 'edmund@example.com',
    notify_referrer_on_join: false,
  });
  // Also after the rest: linkifiers 1 (issues) and 2 (commits), default
  // channel group 1 (design, random), and the path of Cordelia's upload.
  await ok('iago', 'POST', '/realm/filters', {
    pattern: '#(?P<id>[0-9]+)',
    url_template: 'https://tracker.example.com/lear/issues/{id}',
  });
  await ok('iago', 'POST', '/realm/filters', {
    pattern: '\\b(?P<hash>[0-9a-f]{40})\\b',
    url_template: 'https://git.example.com/lear/app/commit/{hash}',
  });
  await ok('iago', 'POST', '/default_stream_groups/create', {
    group_name: 'Newcomers',
    description: 'Where new people start',
    stream_names: ['design', 'random'],
  });
  standIns.set(EXAMPLE_UPLOAD_PATH, upload.body.url.replace(/^\/user_uploads\/\d+\//, ''));
  // Hamlet's alert words (after every message, so that no flag above depends on them).
  await ok('hamlet', 'POST', '/users/me/alert_words', { alert_words: ['castle', 'Elsinore'] });

  // An export of Lear & Co. by Iago, finished (export 1).
  await ok('iago', 'POST', '/export/realm', {});
  await Promise.all([...runningExports]);

  // Reports of messages go to leadership.
  await ok('iago', 'PATCH', '/realm', { moderation_request_channel_id: 3 });

  // Hamlet's storage holds one entry.
  await ok('hamlet', 'PUT', '/bot_storage', { storage: { standup_day: 'Monday' } });

  return { users, standIns };
}

// PATCH /settings: every personal setting of user_settings, Zulip's defaults
// for a new account, its validation and errors, and its events (user_settings
// for everyone; the legacy update_display_settings and
// update_global_notifications for clients without user_settings_object),
// applied to registered states and compared with a fresh /register.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents, type Event, type State } from './support/apply-events';
import { withoutIds, type QueueEvent } from './support/events';
import { TestServer, type Cast } from './support/server';
import { choices, pick, settings } from './support/settings-values';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const names = Object.keys(settings);

/** The settings the legacy display and notification events carry. */
const displaySettings = [
  'color_scheme',
  'default_language',
  'web_home_view',
  'demote_inactive_streams',
  'emojiset',
  'enable_drafts_synchronization',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'translate_emoticons',
  'twenty_four_hour_time',
  'timezone',
];
const notificationSettings = [
  'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_audible_notifications',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
];

let counter = 0;
async function freshUser(): Promise<User> {
  counter += 1;
  return server.createUser(cast.realm, { email: `settings-${counter}@example.com` });
}

async function register(user: User, params: Record<string, unknown> = {}): Promise<State> {
  const res = await server.call('POST', '/register', { as: user, params });
  expect(res.status).toBe(200);
  return res.body;
}

async function events(user: User, queueId: string): Promise<QueueEvent[]> {
  const res = await server.call('GET', '/events', {
    as: user,
    params: { queue_id: queueId, last_event_id: -1, dont_block: true },
  });
  return res.body.events;
}

async function patch(user: User, params: Record<string, unknown>) {
  return server.call('PATCH', '/settings', { as: user, params });
}

/** The legacy top-level copies of the settings in a /register state. */
const legacyCopies = (state: State) =>
  Object.fromEntries([...displaySettings, ...notificationSettings].map((n) => [n, state[n]]));

test("a new account has Zulip's default for every setting, in user_settings and in the legacy copies", async () => {
  const user = await freshUser();
  const state = await register(user, {
    fetch_event_types: ['user_settings', 'update_display_settings', 'update_global_notifications'],
  });
  expect(state.user_settings).toEqual({ ...pick(0), ...choices });
  expect(legacyCopies(state)).toEqual(
    Object.fromEntries(
      [...displaySettings, ...notificationSettings].map((n) => [n, settings[n][0]]),
    ),
  );
  expect(state.emojiset_choices).toEqual(choices.emojiset_choices);
  expect(state.available_notification_sounds).toEqual(choices.available_notification_sounds);
  const defaults = await register(user, { fetch_event_types: ['realm_user_settings_defaults'] });
  const { timezone: _timezone, ...initial } = pick(0);
  expect(defaults.realm_user_settings_defaults).toEqual({ ...initial, ...choices });
});

test('every setting changes in one request, and the events bring registered states to a fresh one', async () => {
  const user = await freshUser();
  const modern = await register(user, { client_capabilities: { user_settings_object: true } });
  const legacy = await register(user);
  const res = await patch(user, pick(1));
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ result: 'success', msg: '' });

  const modernEvents = await events(user, modern.queue_id);
  const legacyEvents = await events(user, legacy.queue_id);
  const ofType = (list: Event[], type: string) => list.filter((e) => e.type === type);
  expect(ofType(modernEvents, 'user_settings').map((e) => e.property)).toEqual(
    expect.arrayContaining(names),
  );
  expect(ofType(modernEvents, 'user_settings')).toHaveLength(names.length);
  expect(ofType(modernEvents, 'update_display_settings')).toEqual([]);
  expect(ofType(modernEvents, 'update_global_notifications')).toEqual([]);
  expect(ofType(legacyEvents, 'user_settings')).toHaveLength(names.length);
  expect(
    ofType(legacyEvents, 'update_display_settings')
      .map((e) => e.setting_name)
      .sort(),
  ).toEqual([...displaySettings].sort());
  expect(
    ofType(legacyEvents, 'update_global_notifications')
      .map((e) => e.notification_name)
      .sort(),
  ).toEqual([...notificationSettings].sort());

  const fresh = await register(user, { client_capabilities: { user_settings_object: true } });
  expect(fresh.user_settings).toEqual({ ...pick(1), ...choices });
  applyEvents(modern, modernEvents);
  expect(modern.user_settings).toEqual(fresh.user_settings);
  expect(modern.realm_users).toEqual(fresh.realm_users);

  const freshLegacy = await register(user);
  applyEvents(legacy, legacyEvents);
  expect(legacy.user_settings).toEqual(freshLegacy.user_settings);
  expect(legacyCopies(legacy)).toEqual(legacyCopies(freshLegacy));
  expect(legacyCopies(freshLegacy)).toEqual(
    Object.fromEntries(
      [...displaySettings, ...notificationSettings].map((n) => [n, settings[n][1]]),
    ),
  );
});

test('the events of one setting have the shapes Zulip gives them', async () => {
  const user = await freshUser();
  const legacy = await register(user, {
    event_types: ['user_settings', 'update_display_settings', 'update_global_notifications'],
  });
  const { email } = await register(user, { fetch_event_types: ['realm_user'] });
  await patch(user, { default_language: 'fr' });
  await patch(user, { enable_sounds: false });
  await patch(user, { web_font_size_px: 20 });
  expect(withoutIds(await events(user, legacy.queue_id))).toEqual([
    {
      type: 'user_settings',
      op: 'update',
      property: 'default_language',
      value: 'fr',
      language_name: 'Français',
    },
    {
      type: 'update_display_settings',
      user: email,
      setting_name: 'default_language',
      setting: 'fr',
      language_name: 'Français',
    },
    { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false },
    {
      type: 'update_global_notifications',
      user: email,
      notification_name: 'enable_sounds',
      setting: false,
    },
    { type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 20 },
  ]);
});

test('a queue of only the legacy event types gets only the legacy events', async () => {
  const user = await freshUser();
  const { queue_id } = await register(user, { event_types: ['update_display_settings'] });
  await patch(user, { emojiset: 'text', enable_sounds: false });
  const [event, ...rest] = await events(user, queue_id);
  expect(event).toMatchObject({
    type: 'update_display_settings',
    setting_name: 'emojiset',
    setting: 'text',
  });
  expect(rest).toEqual([]);
});

test('a value equal to the current one sends no event', async () => {
  const user = await freshUser();
  const { queue_id } = await register(user, { event_types: ['user_settings'] });
  const res = await patch(user, { enter_sends: false, emojiset: 'google', timezone: 'UTC' });
  expect(res.status).toBe(200);
  expect((await events(user, queue_id)).map((e) => e.property)).toEqual(['timezone']);
});

test('notification_sound may be none, and every language code is accepted', async () => {
  const user = await freshUser();
  for (const params of [
    { notification_sound: 'none' },
    { notification_sound: 'chime' },
    { default_language: 'pt_BR' },
    { default_language: 'zh_Hans' },
    { email_notifications_batching_period_seconds: 604800 },
  ]) {
    const res = await patch(user, params);
    expect(res.status).toBe(200);
  }
  const { user_settings } = await register(user, { fetch_event_types: ['user_settings'] });
  expect(user_settings).toMatchObject({
    notification_sound: 'chime',
    default_language: 'zh_Hans',
    email_notifications_batching_period_seconds: 604800,
  });
});

test('bad values are refused with Zulip errors, changing nothing', async () => {
  const user = await freshUser();
  const cases: [Record<string, unknown>, string][] = [
    [{ color_scheme: 4 }, 'Invalid color_scheme'],
    [{ emojiset: 'apple' }, 'Invalid emojiset'],
    [{ web_home_view: 'home' }, 'Invalid web_home_view'],
    [{ demote_inactive_streams: 0 }, 'Invalid demote_inactive_streams'],
    [{ desktop_icon_count_display: 5 }, 'Invalid desktop_icon_count_display'],
    [{ user_list_style: 4 }, 'Invalid user_list_style'],
    [{ web_channel_default_view: 5 }, 'Invalid web_channel_default_view'],
    [{ web_mark_read_on_scroll_policy: 4 }, 'Invalid web_mark_read_on_scroll_policy'],
    [{ web_animate_image_previews: 'sometimes' }, 'Invalid web_animate_image_previews'],
    [
      { resolved_topic_notice_auto_read_policy: 'x' },
      'Invalid resolved_topic_notice_auto_read_policy',
    ],
    [{ automatically_follow_topics_policy: 5 }, 'Invalid automatically_follow_topics_policy'],
    [
      { realm_name_in_email_notifications_policy: 0 },
      'Invalid realm_name_in_email_notifications_policy',
    ],
    [
      { web_stream_unreads_count_display_policy: 9 },
      'Invalid web_stream_unreads_count_display_policy',
    ],
    [{ email_address_visibility: 6 }, 'Invalid email_address_visibility'],
    [{ timezone: 'Mars/Olympus_Mons' }, 'timezone is not a recognized time zone'],
    [{ timezone: '' }, 'timezone is not a recognized time zone'],
    [{ default_language: 'xx' }, 'Invalid default_language'],
    [{ notification_sound: 'boom' }, "Invalid notification sound 'boom'"],
    [
      { email_notifications_batching_period_seconds: 0 },
      'Invalid email batching period: 0 seconds',
    ],
    [
      { email_notifications_batching_period_seconds: 604801 },
      'Invalid email batching period: 604801 seconds',
    ],
    [{ web_font_size_px: -1 }, 'web_font_size_px is too small'],
    [{ web_line_height_percent: 40000 }, 'web_line_height_percent is too large'],
    [{ web_font_size_px: 14.5 }, 'web_font_size_px is not an integer'],
    [{ hide_ai_features: 'yes' }, 'hide_ai_features is not valid JSON'],
    [{ hide_ai_features: 1 }, 'hide_ai_features is not a boolean'],
    [{ full_name: '   ' }, 'Name too short!'],
  ];
  const { queue_id } = await register(user, { event_types: ['user_settings'] });
  for (const [params, msg] of cases) {
    const res = await patch(user, { enter_sends: true, ...params });
    expect({ params, status: res.status, body: res.body }).toEqual({
      params,
      status: 400,
      body: { result: 'error', msg, code: 'BAD_REQUEST' },
    });
  }
  const { user_settings } = await register(user, { fetch_event_types: ['user_settings'] });
  expect(user_settings).toEqual({ ...pick(0), ...choices });
  expect(await events(user, queue_id)).toEqual([]);
});

test('JSON bodies carry the settings as native values', async () => {
  const user = await freshUser();
  const res = await server.call('PATCH', '/settings', {
    as: user,
    params: { color_scheme: 3, web_home_view: 'all_messages', hide_ai_features: true },
    encoding: 'json',
  });
  expect(res.status).toBe(200);
  const { user_settings } = await register(user, { fetch_event_types: ['user_settings'] });
  expect(user_settings).toMatchObject({
    color_scheme: 3,
    web_home_view: 'all_messages',
    hide_ai_features: true,
  });
});

test('the endpoints merged into PATCH /settings still change any setting, as Zulip keeps them', async () => {
  // Zulip's Python client calls PATCH /settings/notifications for update_notification_settings.
  const user = await freshUser();
  const { queue_id } = await register(user, {
    event_types: ['user_settings'],
    client_capabilities: { user_settings_object: true },
  });
  const notifications = await server.call('PATCH', '/settings/notifications', {
    as: user,
    params: { enable_sounds: false, emojiset: 'text' },
  });
  expect(notifications.body).toEqual({ result: 'success', msg: '' });
  const display = await server.call('PATCH', '/settings/display', {
    as: user,
    params: { color_scheme: 2, enable_digest_emails: false },
  });
  expect(display.body).toEqual({ result: 'success', msg: '' });
  const refused = await server.call('PATCH', '/settings/notifications', {
    as: user,
    params: { timezone: 'Europe/Elsinore' },
  });
  expect(refused.body).toEqual({
    result: 'error',
    msg: 'timezone is not a recognized time zone',
    code: 'BAD_REQUEST',
  });
  const { user_settings } = await register(user, { fetch_event_types: ['user_settings'] });
  expect(user_settings).toMatchObject({
    enable_sounds: false,
    emojiset: 'text',
    color_scheme: 2,
    enable_digest_emails: false,
  });
  expect((await events(user, queue_id)).map((e) => [e.type, e.op, e.property, e.value])).toEqual([
    ['user_settings', 'update', 'emojiset', 'text'],
    ['user_settings', 'update', 'enable_sounds', false],
    ['user_settings', 'update', 'color_scheme', 2],
    ['user_settings', 'update', 'enable_digest_emails', false],
  ]);
});

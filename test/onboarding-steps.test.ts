// Onboarding steps through HTTP: the steps /register offers, marking one as
// read, the refusals, and the onboarding_steps event applied to the state.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const allSteps = [
  { type: 'one_time_notice', name: 'visibility_policy_banner' },
  { type: 'one_time_notice', name: 'intro_inbox_view_modal' },
  { type: 'one_time_notice', name: 'intro_recent_view_modal' },
  { type: 'one_time_notice', name: 'first_stream_created_banner' },
  { type: 'one_time_notice', name: 'jump_to_conversation_banner' },
  { type: 'one_time_notice', name: 'non_interleaved_view_messages_fading' },
  { type: 'one_time_notice', name: 'interleaved_view_messages_fading' },
  { type: 'one_time_notice', name: 'intro_resolve_topic' },
  { type: 'one_time_action', name: 'narrow_to_dm_with_welcome_bot_new_user' },
];

function register(as = cast.member) {
  return server.call('POST', '/register', {
    as,
    params: { event_types: ['onboarding_steps'], fetch_event_types: ['onboarding_steps'] },
  });
}

function mark(step: string, as = cast.member) {
  return server.call('POST', '/users/me/onboarding_steps', {
    as,
    params: { onboarding_step: step },
  });
}

test('a new user has every step ahead but the tour video, which is not offered', async () => {
  const { body } = await register(cast.member2);
  expect(body.onboarding_steps).toEqual(allSteps);
  expect(body.navigation_tour_video_url).toBeNull();
});

test('marking a step as read removes it for that user only, and notifies their clients', async () => {
  const state = (await register()).body;
  const otherQueue = (await register(cast.admin)).body.queue_id;
  expect((await mark('intro_inbox_view_modal')).body).toEqual({ result: 'success', msg: '' });
  // Marking it again changes nothing, but still answers the list.
  expect((await mark('intro_inbox_view_modal')).status).toBe(200);
  expect((await mark('narrow_to_dm_with_welcome_bot_new_user')).status).toBe(200);
  const { body } = await server.call('GET', '/events', {
    as: cast.member,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  const ahead = allSteps.filter(
    (s) => !['intro_inbox_view_modal', 'narrow_to_dm_with_welcome_bot_new_user'].includes(s.name),
  );
  expect(body.events).toHaveLength(3);
  expect(withoutIds(body.events)[2]).toEqual({ type: 'onboarding_steps', onboarding_steps: ahead });
  const fresh = (await register()).body;
  expect(fresh.onboarding_steps).toEqual(ahead);
  expect(applyEvents(state, body.events).onboarding_steps).toEqual(fresh.onboarding_steps);
  const other = await server.call('GET', '/events', {
    as: cast.admin,
    params: { queue_id: otherQueue, last_event_id: -1, dont_block: true },
  });
  expect(other.body.events).toEqual([]);
  expect((await register(cast.admin)).body.onboarding_steps).toEqual(allSteps);
});

test('unknown steps and bots are refused', async () => {
  const bot = await server.createUser(cast.realm, { email: 'helper-bot@example.com', isBot: true });
  for (const [step, as, msg] of [
    ['intro_nonsense', cast.member, 'Unknown onboarding_step: intro_nonsense'],
    ['', cast.member, 'Unknown onboarding_step: '],
    ['intro_inbox_view_modal', bot, 'This endpoint does not accept bot requests.'],
  ] as const) {
    const res = await mark(step, as);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
  }
});

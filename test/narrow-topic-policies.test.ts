// The narrows that read the user's topic preferences (POST /user_topics):
// is:followed finds followed topics; is:muted and in:home split messages by
// muting as Zulip does, where a muted topic is muted anywhere and a muted
// channel's topics are muted unless the user unmuted or follows them. Both in
// GET /messages and for event queues registered with such a narrow.
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  idsOf,
  register,
  sendDirect,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
const m: Record<string, number> = {};

const FOLLOWED = 3;
const MUTED = 1;
const UNMUTED = 2;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.admin, ['alpha', 'beta'], {
    principals: [cast.admin.id, cast.member.id],
  });
  const send = (channel: string, topic: string) =>
    sendToChannel(server, cast.admin, channel, topic, `in ${channel} > ${topic}`);
  m.followed = await send('alpha', 'Release Plans');
  m.mutedTopic = await send('alpha', 'lunch');
  m.plain = await send('alpha', 'misc');
  m.mutedChannel = await send('beta', 'chatter');
  m.kept = await send('beta', 'incidents');
  m.followedInMuted = await send('beta', 'on call');
  m.direct = await sendDirect(server, cast.admin, [cast.member.id], 'hello');

  const alpha = await streamId(server, cast.member, 'alpha');
  const beta = await streamId(server, cast.member, 'beta');
  const policy = async (stream_id: number, topic: string, visibility_policy: number) => {
    const res = await server.call('POST', '/user_topics', {
      as: cast.member,
      params: { stream_id, topic, visibility_policy },
    });
    expect(res.status).toBe(200);
  };
  // Case differs from the messages' topic: topics match without regard to case.
  await policy(alpha, 'release plans', FOLLOWED);
  await policy(alpha, 'lunch', MUTED);
  await policy(beta, 'incidents', UNMUTED);
  await policy(beta, 'on call', FOLLOWED);
  const muted = await server.call('POST', '/users/me/subscriptions/properties', {
    as: cast.member,
    params: { subscription_data: [{ stream_id: beta, property: 'is_muted', value: true }] },
  });
  expect(muted.status).toBe(200);
});
afterAll(() => server.stop());

const found = async (narrow: unknown[]) => (await idsOf(server, cast.member, narrow)).sort();
const ids = (...names: string[]) => names.map((name) => m[name]).sort();

test('is:followed finds the followed topics, in muted channels too', async () => {
  expect(await found([{ operator: 'is', operand: 'followed' }])).toEqual(
    ids('followed', 'followedInMuted'),
  );
  expect(await found([{ operator: 'is', operand: 'followed', negated: true }])).toEqual(
    ids('mutedTopic', 'plain', 'mutedChannel', 'kept', 'direct'),
  );
});

test('is:muted finds muted topics and the muted channel topics the user did not keep', async () => {
  expect(await found([{ operator: 'is', operand: 'muted' }])).toEqual(
    ids('mutedTopic', 'mutedChannel'),
  );
  expect(await found([{ operator: 'is', operand: 'muted', negated: true }])).toEqual(
    ids('followed', 'plain', 'kept', 'followedInMuted', 'direct'),
  );
});

test('in:home leaves out exactly what is:muted finds', async () => {
  expect(await found([{ operator: 'in', operand: 'home' }])).toEqual(
    ids('followed', 'plain', 'kept', 'followedInMuted', 'direct'),
  );
});

test("another user's preferences change nothing for this one", async () => {
  expect(await idsOf(server, cast.admin, [{ operator: 'is', operand: 'followed' }])).toEqual([]);
  expect((await idsOf(server, cast.admin, [{ operator: 'in', operand: 'home' }])).sort()).toEqual(
    ids('followed', 'mutedTopic', 'plain', 'mutedChannel', 'kept', 'followedInMuted', 'direct'),
  );
});

test('event queues registered with these narrows get exactly the new messages they match', async () => {
  const queue = async (narrow: unknown[]) =>
    (await register(server, cast.member, { event_types: ['message'], narrow })).queue_id as string;
  const queues = {
    followed: await queue([['is', 'followed']]),
    muted: await queue([['is', 'muted']]),
    home: await queue([['in', 'home']]),
  };
  const sent: Record<string, number> = {};
  for (const [name, channel, topic] of [
    ['followed', 'alpha', 'RELEASE PLANS'],
    ['mutedTopic', 'alpha', 'lunch'],
    ['plain', 'alpha', 'misc'],
    ['mutedChannel', 'beta', 'chatter'],
    ['kept', 'beta', 'incidents'],
    ['followedInMuted', 'beta', 'on call'],
  ])
    sent[name] = await sendToChannel(server, cast.admin, channel, topic, 'again');
  sent.direct = await sendDirect(server, cast.member2, [cast.member.id], 'hi');
  const got = async (queueId: string) =>
    (await eventsOf(server, cast.member, queueId)).map((e) => e.message.id).sort();
  const sentIds = (...names: string[]) => names.map((name) => sent[name]).sort();
  expect(await got(queues.followed)).toEqual(sentIds('followed', 'followedInMuted'));
  expect(await got(queues.muted)).toEqual(sentIds('mutedTopic', 'mutedChannel'));
  expect(await got(queues.home)).toEqual(
    sentIds('followed', 'plain', 'kept', 'followedInMuted', 'direct'),
  );
});

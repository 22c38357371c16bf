// The scenario with openapi-fetch, typed by what openapi-typescript generates
// from openapi.yaml (into ./openapi-typescript at test time), with their
// default settings and no serializer of our own.
import createClient from 'openapi-fetch';
import type { paths } from './openapi-typescript/api';
import { directNarrow, type Account, type ScenarioInput, type ScenarioReport } from '../scenario';

/** The `data` of a successful answer; anything else fails the scenario with the answer. */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined)
    throw new Error(`openapi-fetch: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

/** Runs the scenario and reports what it saw. */
export async function run(input: ScenarioInput): Promise<ScenarioReport> {
  const as = (user: Account) =>
    createClient<paths>({
      baseUrl: input.apiUrl,
      headers: {
        Authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`,
      },
    });
  const alice = as(input.alice);
  const bob = as(input.bob);
  const carol = as(input.carol);

  const aliceQueue = ok(
    await alice.POST('/register', {
      body: { event_types: ['message', 'reaction', 'update_message'] },
    }),
  );
  const bobQueue = ok(await bob.POST('/register', { body: { event_types: ['message'] } }));
  ok(
    await alice.POST('/users/me/subscriptions', {
      body: { subscriptions: [{ name: input.channel }], principals: [input.bob.id] },
    }),
  );

  const channelMessage = ok(
    await alice.POST('/messages', {
      body: {
        type: 'stream',
        to: input.channel,
        topic: 'generated',
        content: `Hello from ${input.tag}`,
      },
    }),
  );
  const directMessage = ok(
    await alice.POST('/messages', {
      body: {
        type: 'direct',
        to: [input.bob.id, input.carol.id],
        content: `Direct from ${input.tag}`,
      },
    }),
  );

  const read = async (client: typeof alice, narrow: unknown) => {
    const page = ok(
      await client.GET('/messages', {
        params: {
          query: { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify(narrow) },
        },
      }),
    );
    return page.messages.map((m) => ({ id: m.id, content: m.content }));
  };
  const bobChannel = await read(bob, [{ operator: 'channel', operand: input.channel }]);
  const bobDirect = await read(bob, directNarrow(input, input.bob));
  const carolDirect = await read(carol, directNarrow(input, input.carol));

  ok(
    await bob.POST('/messages/{message_id}/reactions', {
      params: { path: { message_id: channelMessage.id } },
      body: { emoji_name: 'octopus' },
    }),
  );
  ok(
    await alice.PATCH('/messages/{message_id}', {
      params: { path: { message_id: channelMessage.id } },
      body: { content: `Edited by ${input.tag}` },
    }),
  );
  const edited = ok(
    await bob.GET('/messages/{message_id}', {
      params: { path: { message_id: channelMessage.id } },
    }),
  ).message;

  const events = (client: typeof alice, queueId: string) =>
    client.GET('/events', {
      params: { query: { queue_id: queueId, last_event_id: -1, dont_block: true } },
    });
  const aliceEvents = ok(await events(alice, aliceQueue.queue_id!)).events;
  const bobEvents = ok(await events(bob, bobQueue.queue_id!)).events;

  return {
    channelMessageId: channelMessage.id,
    directMessageId: directMessage.id,
    bobChannel,
    bobDirect,
    carolDirect,
    edited: {
      content: edited.content,
      reactions: edited.reactions.map((r) => ({ emoji_name: r.emoji_name, user_id: r.user_id })),
    },
    aliceEvents: aliceEvents.map((e) => ({
      type: e.type,
      op: 'op' in e ? e.op : undefined,
      message_id: 'message_id' in e ? e.message_id : 'message' in e ? e.message.id : undefined,
    })),
    bobEventMessageIds: bobEvents
      .filter((e) => e.type === 'message')
      .map((e) => (e.message as { id: number }).id),
  };
}

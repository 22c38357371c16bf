// The scenario with the client @hey-api/openapi-ts generates from openapi.yaml
// with its default settings (its fetch client, into ./hey-api at test time).
// Nothing here serializes anything: the SDK sends what the contract says.
import { createClient, createConfig } from './hey-api/client';
import {
  addReaction,
  getEvents,
  getMessage,
  getMessages,
  registerQueue,
  sendMessage,
  subscribe,
  updateMessage,
} from './hey-api/sdk.gen';
import { directNarrow, type Account, type ScenarioInput, type ScenarioReport } from '../scenario';

/** The `data` of a successful answer; anything else fails the scenario with the answer. */
function ok<T>(answer: { data?: T; error?: unknown; response?: Response }): T {
  if (answer.data === undefined)
    throw new Error(`hey-api: ${answer.response?.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

/** Runs the scenario and reports what it saw. */
export async function run(input: ScenarioInput): Promise<ScenarioReport> {
  const as = (user: Account) =>
    createClient(createConfig({ baseUrl: input.apiUrl, auth: `${user.email}:${user.apiKey}` }));
  const alice = as(input.alice);
  const bob = as(input.bob);
  const carol = as(input.carol);

  const aliceQueue = ok(
    await registerQueue({
      client: alice,
      body: { event_types: ['message', 'reaction', 'update_message'] },
    }),
  );
  const bobQueue = ok(await registerQueue({ client: bob, body: { event_types: ['message'] } }));
  ok(
    await subscribe({
      client: alice,
      body: { subscriptions: [{ name: input.channel }], principals: [input.bob.id] },
    }),
  );

  const channelMessage = ok(
    await sendMessage({
      client: alice,
      body: {
        type: 'stream',
        to: input.channel,
        topic: 'generated',
        content: `Hello from ${input.tag}`,
      },
    }),
  );
  const directMessage = ok(
    await sendMessage({
      client: alice,
      body: {
        type: 'direct',
        to: [input.bob.id, input.carol.id],
        content: `Direct from ${input.tag}`,
      },
    }),
  );

  const read = async (client: typeof alice, narrow: unknown) => {
    const page = ok(
      await getMessages({
        client,
        query: { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify(narrow) },
      }),
    );
    return page.messages.map((m) => ({ id: m.id, content: m.content }));
  };
  const bobChannel = await read(bob, [{ operator: 'channel', operand: input.channel }]);
  const bobDirect = await read(bob, directNarrow(input, input.bob));
  const carolDirect = await read(carol, directNarrow(input, input.carol));

  ok(
    await addReaction({
      client: bob,
      path: { message_id: channelMessage.id },
      body: { emoji_name: 'octopus' },
    }),
  );
  ok(
    await updateMessage({
      client: alice,
      path: { message_id: channelMessage.id },
      body: { content: `Edited by ${input.tag}` },
    }),
  );
  const edited = ok(
    await getMessage({ client: bob, path: { message_id: channelMessage.id } }),
  ).message;

  const aliceEvents = ok(
    await getEvents({
      client: alice,
      query: { queue_id: aliceQueue.queue_id!, last_event_id: -1, dont_block: true },
    }),
  ).events;
  const bobEvents = ok(
    await getEvents({
      client: bob,
      query: { queue_id: bobQueue.queue_id!, last_event_id: -1, dont_block: true },
    }),
  ).events;

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

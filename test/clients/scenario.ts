// The scenario every generated client runs (test/generated-clients.test.ts):
// who takes part, and what the client reports having seen, which the test
// checks the same way for every client.

/** One user's credentials. */
export interface Account {
  id: number;
  email: string;
  apiKey: string;
}

/** What a scenario is given: the API's address, a channel name of its own, and three users. */
export interface ScenarioInput {
  /** The server's address with /api/v1. */
  apiUrl: string;
  channel: string;
  /** Sends, edits and listens to events. */
  alice: Account;
  /** Subscribed by Alice; reacts; receives the direct message. */
  bob: Account;
  /** Receives the direct message. */
  carol: Account;
  /** Text that makes this client's messages unique. */
  tag: string;
}

/** A message as a client read it. */
export interface SeenMessage {
  id: number;
  content: string;
}

/** What a client saw while running the scenario. */
export interface ScenarioReport {
  /** The channel message Alice sent, and the direct message to Bob and Carol. */
  channelMessageId: number;
  directMessageId: number;
  /** Bob's read of the channel, narrowed to it. */
  bobChannel: SeenMessage[];
  /** Each recipient's read of their direct messages with Alice and each other. */
  bobDirect: SeenMessage[];
  carolDirect: SeenMessage[];
  /** The channel message after Bob's reaction and Alice's edit. */
  edited: { content: string; reactions: { emoji_name: string; user_id: number }[] };
  /** The events of Alice's queue (type, op, message ID), and the message IDs of Bob's. */
  aliceEvents: { type: string; op?: string; message_id?: number }[];
  bobEventMessageIds: number[];
}

/** What each client's scenario module exports. */
export type Scenario = { run: (input: ScenarioInput) => Promise<ScenarioReport> };

/**
 * Each user's narrow for the direct message: the conversation of all three,
 * given by the other two participants' IDs.
 */
export function directNarrow(
  input: ScenarioInput,
  viewer: Account,
): { operator: string; operand: number[] }[] {
  const others = [input.alice, input.bob, input.carol]
    .filter((user) => user.id !== viewer.id)
    .map((user) => user.id);
  return [{ operator: 'dm', operand: others }];
}

// What a new organization starts with, as Zulip creates one: three public
// channels that every newcomer joins (one for questions about the chat
// itself, a sandbox to try things in, and one for the whole team), and
// Welcome Bot's first conversations in them, which tell people where to start.

/** One channel a new organization starts with. */
export interface FirstChannel {
  name: string;
  description: string;
}

/** The channels of a new organization, in the order they are created. */
export const firstChannels = {
  /** Questions about using the chat itself. */
  discussion: { name: 'Zulip', description: 'Questions and discussion about using Zulip.' },
  /** A place to try features without disturbing anyone. */
  sandbox: { name: 'sandbox', description: 'Try Zulip out here. :test_tube:' },
  /** Conversations for the whole team. */
  general: { name: 'general', description: 'For conversations with the whole team' },
} satisfies Record<string, FirstChannel>;

/** One of Welcome Bot's first messages: its channel, topic and Markdown. */
export interface FirstMessage {
  channel: keyof typeof firstChannels;
  topic: string;
  content: string;
}

/** The topic of the main welcome, sent last so that it is the newest conversation. */
export const WELCOME_TOPIC = 'welcome to Zulip!';
/** The topic of the greetings, whose first message Welcome Bot waves at. */
export const GREETINGS_TOPIC = 'greetings';

/**
 * Welcome Bot's first messages, oldest first: the newest are the first a
 * newcomer sees in lists sorted by recent activity, so the main welcome comes
 * last. Each topic's first message is the one to read first.
 */
export function firstMessages(): FirstMessage[] {
  const discussion = firstChannels.discussion.name;
  return [
    {
      channel: 'discussion',
      topic: 'moving messages',
      content:
        'Messages that land in the wrong place are easy to fix: you can [move them to another topic](/help/move-content-to-another-topic), [rename a topic](/help/rename-a-topic), split one in two, or [move a topic to another channel](/help/move-content-to-another-channel).',
    },
    {
      channel: 'discussion',
      topic: 'moving messages',
      content: ':point_right: Try it: move this message to another topic, then back.',
    },
    {
      channel: 'sandbox',
      topic: 'experiments',
      content:
        ':point_right: This topic is for trying out [how messages can be formatted](/help/format-your-message-using-markdown).',
    },
    {
      channel: 'sandbox',
      topic: 'experiments',
      content: [
        '```spoiler A few things to try',
        '',
        '````python',
        'print("a code block")',
        '````',
        '',
        '- a bulleted',
        '- list',
        '',
        `A link to a conversation: #**${discussion}>${WELCOME_TOPIC}**`,
        '',
        '```',
      ].join('\n'),
    },
    {
      channel: 'sandbox',
      topic: 'start a conversation',
      content:
        'To start a new conversation, choose a channel in the left sidebar and click the `+` beside its name.',
    },
    {
      channel: 'sandbox',
      topic: 'start a conversation',
      content: 'Give it a topic: a few words that finish the sentence "Could we talk about...?"',
    },
    {
      channel: 'sandbox',
      topic: 'start a conversation',
      content: ':point_right: Try it here: start a conversation of your own in this channel.',
    },
    {
      channel: 'general',
      topic: GREETINGS_TOPIC,
      content: 'This **greetings** topic is the place to say hello :wave: to the rest of the team.',
    },
    {
      channel: 'general',
      topic: GREETINGS_TOPIC,
      content: ':point_right: Click this message to reply in the same conversation.',
    },
    {
      channel: 'discussion',
      topic: WELCOME_TOPIC,
      content: `Conversations here each carry a topic, which says what they are about. This message, for instance, is in the "${WELCOME_TOPIC}" topic of the #**${discussion}** channel, as the left sidebar and the heading above show.`,
    },
    {
      channel: 'discussion',
      topic: WELCOME_TOPIC,
      content:
        'So you can read one conversation at a time, each message in its context, however many others are going on at once.',
    },
    {
      channel: 'discussion',
      topic: WELCOME_TOPIC,
      content:
        ':point_right: When you are ready, your [Inbox](/#inbox) lists the other conversations with unread messages.',
    },
  ];
}

// What Welcome Bot says: the direct message it sends each new person, so that
// nobody starts in an empty organization (clients open on a conversation, and
// the newcomer reads where to begin), and its answers when written to.
import type { Realm } from '../../../generated/prisma/sqlite/client';

/** `text` as Markdown that renders as itself: every ASCII punctuation mark escaped. */
function literal(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** The Markdown of the welcome message for a new member of `realm`. */
export function welcomeMessageContent(realm: Pick<Realm, 'name'>): string {
  // One line for each paragraph and list item: a single newline is a line
  // break in Zulip's Markdown.
  return [
    `Hi, and welcome to **${literal(realm.name)}**! :wave:`,
    '',
    'I am Welcome Bot, and this conversation is just between the two of us. Some first steps:',
    '',
    '* Browse the channels of the organization and subscribe to the ones you care about.',
    '* Every message in a channel belongs to a topic: start a new topic for a new subject, and reply in an existing one to keep its conversation together.',
    '* Messages are written in Markdown: `**bold**`, `*italic*`, and `@**name**` to mention someone.',
    '* Add a photo and your details in your personal settings, so others know who you are.',
  ].join('\n');
}

/** Welcome Bot's answers, by the word a direct message to it holds. */
const answers: [keyword: string, answer: string][] = [
  [
    'channels',
    'Channels are where conversations happen in the open. Browse them all to find the ones you want to follow, and subscribe; an administrator may also have subscribed you to some already.',
  ],
  [
    'topics',
    'Each message in a channel carries a topic, a short subject line. Reading and replying by topic keeps conversations apart, even in a busy channel: start a new topic for a new subject.',
  ],
  [
    'formatting',
    'Messages are Markdown: `**bold**`, `*italic*`, backticks around code, lists with `*`, quotes with `>`, a line of three backticks before and after a code block, and `@**name**` to mention someone.',
  ],
  [
    'profile',
    'Your name, photo, time zone and the profile fields of the organization are in your personal settings. Filling them in helps others know who they are talking to.',
  ],
];

/** What Welcome Bot answers to a direct message whose Markdown is `content`. */
export function welcomeBotAnswer(content: string): string {
  const words = content.toLowerCase();
  const found = answers.find(([keyword]) => words.includes(keyword));
  if (found) return found[1];
  const keywords = answers.map(([keyword]) => `\`${keyword}\``).join(', ');
  return `I am only a bot, and I answer just a few words: ${keywords}. Send me one of them, or ask the people of your organization.`;
}

// The direct message Welcome Bot sends each new person, so that nobody starts
// in an empty organization: clients open on a conversation, and the newcomer
// reads where to begin.
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

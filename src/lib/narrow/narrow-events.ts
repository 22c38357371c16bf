// Message events and narrows: queues registered with a narrow keep only the
// message events that match it. Each message event is published with the
// facts a narrow is checked against (IDs, real emails, raw content) as plain
// data beside it, so matching needs no database and works in any process.
//
// Wiring: the queue store is built with `messageEventHooks` at start.
import type {
  MessageEventBody,
  MessageEventHooks,
  MessageFacts,
  NarrowTerm,
} from '../../events/queues';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../constants';
import { searchWords } from './narrow-sql';

function userMatches(operand: unknown, id: number, email: string): boolean {
  if (typeof operand === 'number') return operand === id;
  return String(operand).trim().toLowerCase() === email;
}

function participantsMatch(operand: unknown, facts: MessageFacts, viewerId: number): boolean {
  if (facts.streamId !== null) return false;
  const list = Array.isArray(operand)
    ? operand
    : typeof operand === 'number'
      ? [operand]
      : String(operand)
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean);
  const ids = new Set<number>();
  for (const item of list) {
    if (typeof item === 'number') ids.add(item);
    else {
      const i = facts.dmEmails.indexOf(String(item).toLowerCase());
      if (i < 0) return false;
      ids.add(facts.dmUserIds[i]);
    }
  }
  ids.add(viewerId);
  return ids.size === facts.dmUserIds.length && facts.dmUserIds.every((id) => ids.has(id));
}

/** Whether one term (before negation) holds for a message with these facts and flags. */
function termHolds(
  term: NarrowTerm,
  facts: MessageFacts,
  flags: string[],
  viewerId: number,
): boolean {
  const { operator, operand } = term;
  switch (operator) {
    case 'channel':
    case 'stream':
      return (
        facts.streamId !== null &&
        (typeof operand === 'number'
          ? operand === facts.streamId
          : String(operand).toLowerCase() === facts.streamName.toLowerCase())
      );
    case 'topic':
    case 'subject': {
      const wanted = String(operand) === EMPTY_TOPIC_DISPLAY_NAME ? '' : String(operand);
      return facts.streamId !== null && wanted.toLowerCase() === facts.topic.toLowerCase();
    }
    case 'sender':
      return operand === 'me'
        ? facts.senderId === viewerId
        : userMatches(operand, facts.senderId, facts.senderEmail);
    case 'dm':
    case 'pm-with':
      return participantsMatch(operand, facts, viewerId);
    case 'dm-including':
      return (
        facts.streamId === null &&
        facts.dmUserIds.some((id, i) => userMatches(operand, id, facts.dmEmails[i]))
      );
    case 'is':
      switch (operand) {
        case 'dm':
        case 'private':
          return facts.streamId === null;
        case 'starred':
          return flags.includes('starred');
        case 'mentioned':
          return flags.some(
            (f) =>
              f === 'mentioned' ||
              f === 'stream_wildcard_mentioned' ||
              f === 'topic_wildcard_mentioned',
          );
        case 'alerted':
          return flags.includes('has_alert_word');
        case 'unread':
          return !flags.includes('read');
        case 'resolved':
          return facts.streamId !== null && facts.topic.startsWith('✔ ');
        case 'muted':
          return facts.mutedFor.includes(viewerId);
        case 'followed':
          return facts.followedBy.includes(viewerId);
        default:
          return false;
      }
    case 'has':
      return operand === 'link'
        ? facts.hasLink
        : operand === 'image'
          ? facts.hasImage
          : operand === 'attachment'
            ? facts.hasAttachment
            : false;
    case 'search': {
      const haystack = `${facts.rawContent} ${facts.topic}`.toLowerCase();
      return searchWords(String(operand)).every((w) => haystack.includes(w.toLowerCase()));
    }
    case 'in':
      return operand !== 'home' || !facts.mutedFor.includes(viewerId);
    case 'near':
    case 'with':
      return true;
    default:
      return false;
  }
}

/** Whether a message event with these facts matches `narrow` for the queue's user. */
export function messageMatchesNarrow(
  narrow: NarrowTerm[],
  event: MessageEventBody,
  facts: MessageFacts,
  viewerId: number,
): boolean {
  const flags = event.flags;
  return narrow.every((t) => termHolds(t, facts, flags, viewerId) !== t.negated);
}

/** How the queues match message events against narrows and shape them per queue. */
export const messageEventHooks: MessageEventHooks = {
  matchesNarrow: (options, event, facts) =>
    messageMatchesNarrow(options.narrow, event, facts, options.userId),
  finalize: (options, event, facts) => finalizeMessageEvent(event, facts, options),
};

/**
 * A message event as a queue registered with `apply_markdown` and
 * `client_gravatar` should receive it. Events are published with the rendered
 * HTML and full avatar URLs; this swaps in the raw Markdown, or the null
 * avatar of client-computed gravatars, for queues that asked for them.
 */
export function finalizeMessageEvent(
  event: MessageEventBody,
  facts: MessageFacts,
  options: { applyMarkdown: boolean; clientGravatar: boolean },
): MessageEventBody {
  if (options.applyMarkdown && !options.clientGravatar) return event;
  const message = { ...event.message };
  if (!options.applyMarkdown) {
    message.content = facts.rawContent;
    message.content_type = 'text/x-markdown';
  }
  if (options.clientGravatar) message.avatar_url = facts.gravatarAvatarUrl;
  return { ...event, message };
}

// The names a message's content may refer to, found without parsing it, so
// the caller can load just those rows before rendering. The lists may name
// more than the rendering uses (mentions inside code, say), never less.
import { STREAM_WILDCARDS, TOPIC_WILDCARD, splitIdSyntax } from './mentions';

/** Names and ids the content may refer to, each listed once. */
export interface MentionCandidates {
  /** Full names from @**Name** and @_**Name** (not wildcards, not the |id form). */
  userNames: string[];
  /** Ids from @**Name|12** and @**|12**. */
  userIds: number[];
  /** Names from @*group* and @_*group*. */
  groupNames: string[];
  /** Names from #**channel**, and the channel part of #**channel>topic**. */
  streamNames: string[];
  /** Names from :name:. */
  emojiNames: string[];
}

// Names cannot hold "*" or a newline; each scan stops at the next "*", so
// these run in linear time.
const USER_MENTION = /@_?\*\*([^*\n]+)\*\*/g;
const GROUP_MENTION = /@_?\*([^*\n]+)\*/g;
const CHANNEL_LINK = /#\*\*([^*\n]+)\*\*/g;
const EMOJI = /:([a-zA-Z0-9_+-]{1,100}):/g;

/** The names and ids referred to by `content`'s mention, channel and emoji syntax. */
export function mentionCandidates(content: string): MentionCandidates {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  for (const [, text] of content.matchAll(USER_MENTION)) {
    if (STREAM_WILDCARDS.has(text) || text === TOPIC_WILDCARD) continue;
    const idSyntax = splitIdSyntax(text);
    if (idSyntax) userIds.add(idSyntax.id);
    else userNames.add(text);
  }
  const groupNames = new Set(Array.from(content.matchAll(GROUP_MENTION), (m) => m[1]));
  const streamNames = new Set<string>();
  for (const [, text] of content.matchAll(CHANNEL_LINK)) {
    const separator = text.indexOf('>');
    if (separator > 0) streamNames.add(text.slice(0, separator));
    streamNames.add(text);
  }
  const emojiNames = new Set(Array.from(content.matchAll(EMOJI), (m) => m[1]));
  return {
    userNames: [...userNames],
    userIds: [...userIds],
    groupNames: [...groupNames],
    streamNames: [...streamNames],
    emojiNames: [...emojiNames],
  };
}

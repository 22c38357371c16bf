// User, wildcard and user-group mentions: @**Full Name**, @**Full Name|12**,
// @**|12**, @_**Name** (silent), @**all** / @**topic** (wildcards), @*group*
// and @_*group*. Follows zerver/lib/mention.py and UserMentionPattern.
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './html';
import { envOf, type RenderContext } from './types';

type StateInline = MarkdownIt.StateInline;
type Token = MarkdownIt.Token;

/** Names of the wildcard that notifies everyone in the channel. */
export const STREAM_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);
/** The name of the wildcard that notifies the topic's participants. */
export const TOPIC_WILDCARD = 'topic';

/** What a mention refers to; kept in the token's meta until rendering. */
export type MentionTarget =
  | { kind: 'user'; id: number; name: string; silent: boolean }
  | { kind: 'stream-wildcard'; name: string; silent: boolean }
  | { kind: 'topic-wildcard'; name: string; silent: boolean }
  | { kind: 'group'; id: number; name: string; silent: boolean };

/** Token type of a resolved mention. */
export const MENTION_TOKEN = 'zulip_mention';

/**
 * Whether a mention or channel link may start at `pos`: at the start, or after
 * whitespace or one of ' " ( { / < (and [ unless `allowBracket` is false).
 */
export function mayStartAt(src: string, pos: number, allowBracket = true): boolean {
  if (pos === 0) return true;
  const before = src[pos - 1];
  return /\s/.test(before) || `'"({/<`.includes(before) || (allowBracket && before === '[');
}

/**
 * Where a name between asterisks ends: the index of the first `*` at or after
 * `from`, or -1 when a newline or `max` comes first. Names cannot hold `*`.
 */
export function nameEnd(src: string, from: number, max: number): number {
  for (let i = from; i < max; i++) {
    const ch = src.charCodeAt(i);
    if (ch === 0x2a /* * */) return i;
    if (ch === 0x0a /* \n */) return -1;
  }
  return -1;
}

/** Splits "Name|12" or "|12" into its parts; undefined when there is no id. */
export function splitIdSyntax(text: string): { fullName?: string; id: number } | undefined {
  const bar = text.lastIndexOf('|');
  if (bar < 0) return undefined;
  const digits = text.slice(bar + 1);
  if (!/^\d{1,15}$/.test(digits)) return undefined;
  return { fullName: bar > 0 ? text.slice(0, bar) : undefined, id: Number(digits) };
}

// What @**text** refers to, or undefined when it names nobody.
function resolveUserMention(
  text: string,
  silent: boolean,
  ctx: RenderContext,
): MentionTarget | undefined {
  if (STREAM_WILDCARDS.has(text)) return { kind: 'stream-wildcard', name: text, silent };
  if (text === TOPIC_WILDCARD) return { kind: 'topic-wildcard', name: text, silent };
  const idSyntax = splitIdSyntax(text);
  const user = idSyntax ? ctx.userById(idSyntax.id) : ctx.userByName(text);
  if (!user) return undefined;
  // @**name|id** must name the user with that id (Zulip rejects a mismatch).
  if (idSyntax?.fullName !== undefined && idSyntax.fullName !== user.fullName) return undefined;
  return { kind: 'user', id: user.id, name: user.fullName, silent };
}

/** markdown-it inline rule: @**user**, @_**user**, @*group* and @_*group*. */
export function mentionRule(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== 0x40 /* @ */ || !mayStartAt(src, pos)) return false;
  let start = pos + 1;
  const isSilent = src[start] === '_';
  if (isSilent) start++;
  if (src[start] !== '*') return false;
  const double = src[start + 1] === '*';
  const nameStart = start + (double ? 2 : 1);
  const end = nameEnd(src, nameStart, posMax);
  if (end <= nameStart) return false;
  const closeLength = double ? 2 : 1;
  if (end + closeLength > posMax || (double && src[end + 1] !== '*')) return false;

  const text = src.slice(nameStart, end);
  const { ctx } = envOf(state);
  let target: MentionTarget | undefined;
  if (double) {
    target = resolveUserMention(text, isSilent, ctx);
  } else {
    const group = ctx.groupByName(text);
    target = group && { kind: 'group', id: group.id, name: group.name, silent: isSilent };
  }
  if (!target) return false;

  if (!silent) state.push(MENTION_TOKEN, 'span', 0).meta = { target };
  state.pos = end + closeLength;
  return true;
}

/** The target of a mention token. */
export function mentionTarget(token: Token): MentionTarget {
  return (token.meta as { target: MentionTarget }).target;
}

/** Renders a mention token in Zulip's shape. */
export function renderMention(tokens: Token[], idx: number): string {
  const target = mentionTarget(tokens[idx]);
  const silentClass = target.silent ? ' silent' : '';
  const text = escapeHtml(target.silent ? target.name : `@${target.name}`);
  switch (target.kind) {
    case 'user':
      return `<span class="user-mention${silentClass}" data-user-id="${target.id}">${text}</span>`;
    case 'stream-wildcard':
      return `<span class="user-mention channel-wildcard-mention${silentClass}" data-user-id="*">${text}</span>`;
    case 'topic-wildcard':
      return `<span class="topic-mention${silentClass}">${text}</span>`;
    case 'group':
      return `<span class="user-group-mention${silentClass}" data-user-group-id="${target.id}">${text}</span>`;
  }
}

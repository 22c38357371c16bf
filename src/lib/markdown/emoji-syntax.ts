// Emoji in messages: :name: (custom realm emoji first, then :zulip:, then
// Unicode emoji by canonical name or alias) and emoji characters typed
// directly. Follows Zulip's Emoji and UnicodeEmoji patterns and make_emoji /
// make_realm_emoji.
import type MarkdownIt from 'markdown-it';
import { unicodeEmojiByTypedCode, unicodeEmojiCode } from '../emoji/emoji';
import { escapeHtml } from './html';
import { envOf } from './types';

type StateInline = MarkdownIt.StateInline;
type StateCore = MarkdownIt.StateCore;
type Token = MarkdownIt.Token;

/** Token type of a resolved emoji. */
export const EMOJI_TOKEN = 'zulip_emoji';

/** An emoji to render: a Unicode one by code point, or an image. */
export type EmojiTarget =
  { kind: 'unicode'; name: string; code: string } | { kind: 'image'; name: string; url: string };

/** The image of the built-in :zulip: emoji (kept relative, as Zulip does). */
const ZULIP_EMOJI_URL = '/static/generated/emoji/images/emoji/unicode/zulip.png';

// Emoji names are short; scanning stops after this many characters.
const MAX_NAME_LENGTH = 100;

// What :name: shows, or undefined for a name that is not an emoji. The name
// is shown as typed (an alias stays an alias), as Zulip does.
function resolveEmojiName(name: string, state: StateInline): EmojiTarget | undefined {
  const realmEmoji = envOf(state).ctx.realmEmojiByName(name);
  if (realmEmoji) return { kind: 'image', name, url: realmEmoji.url };
  if (name === 'zulip') return { kind: 'image', name, url: ZULIP_EMOJI_URL };
  const code = unicodeEmojiCode(name);
  return code === undefined ? undefined : { kind: 'unicode', name, code };
}

// A character of an emoji name: a word character (any script, as Python's
// \w: flag_réunion, piñata), `-` or `+`.
const NAME_CHAR = /[\p{L}\p{M}\p{Nd}\p{Pc}+-]/u;

function isNameChar(ch: string): boolean {
  return NAME_CHAR.test(ch);
}

/**
 * markdown-it inline rule: :name:. An unknown :name: is consumed as plain
 * text, as in Zulip, so that its closing colon cannot open another emoji.
 */
export function emojiRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x3a /* : */) return false;
  const limit = Math.min(state.posMax, pos + 1 + MAX_NAME_LENGTH);
  let end = pos + 1;
  while (end < limit && isNameChar(src[end])) end++;
  if (end === pos + 1 || end >= state.posMax || src.charCodeAt(end) !== 0x3a) return false;

  const name = src.slice(pos + 1, end);
  const target = resolveEmojiName(name, state);
  if (!silent) {
    if (target) state.push(EMOJI_TOKEN, '', 0).meta = { target };
    else state.pending += `:${name}:`;
  }
  state.pos = end + 1;
  return true;
}

// A possible emoji: a flag, or an emoji with its modifier, presentation selector,
// keycap or tag sequence, joined by ZWJ to more of the same (Unicode TR51).
const EMOJI_ELEMENT = String.raw`(?:\p{RI}\p{RI}|\p{Emoji}(?:\p{EMod}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?)`;
const POSSIBLE_EMOJI = new RegExp(`${EMOJI_ELEMENT}(?:\\u200D${EMOJI_ELEMENT})*`, 'gu');
// Characters that are text unless asked otherwise (digits, ↔, ©...).
const TEXT_PRESENTATION = /^\P{Emoji_Presentation}\u20E3?$/u;

// The emoji token for a typed emoji character sequence, if it is a known emoji.
function typedEmoji(sequence: string, state: StateCore): Token | undefined {
  if (TEXT_PRESENTATION.test(sequence)) return undefined;
  const typed = Array.from(sequence, (ch) => ch.codePointAt(0)!.toString(16).padStart(4, '0')).join(
    '-',
  );
  const emoji = unicodeEmojiByTypedCode(typed);
  if (emoji === undefined) return undefined;
  const token = new state.Token(EMOJI_TOKEN, '', 0);
  token.meta = {
    target: { kind: 'unicode', name: emoji.name, code: emoji.code } satisfies EmojiTarget,
  };
  return token;
}

// Splits a text token around the emoji characters it holds.
function splitText(token: Token, state: StateCore): Token[] {
  const parts: Token[] = [];
  const text = token.content;
  let last = 0;
  for (const match of text.matchAll(POSSIBLE_EMOJI)) {
    const emoji = typedEmoji(match[0], state);
    if (!emoji) continue;
    if (match.index > last) parts.push(textToken(text.slice(last, match.index), token, state));
    emoji.level = token.level;
    parts.push(emoji);
    last = match.index + match[0].length;
  }
  if (last === 0) return [token];
  if (last < text.length) parts.push(textToken(text.slice(last), token, state));
  return parts;
}

function textToken(content: string, like: Token, state: StateCore): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  token.level = like.level;
  return token;
}

/** markdown-it core rule: turns emoji characters in text into emoji tokens. */
export function typedEmojiRule(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    // Only non-ASCII text can hold an emoji sequence.
    if (!/[\u0080-\uffff]/.test(block.content)) continue;
    block.children = block.children.flatMap((child) =>
      child.type === 'text' && /[\u0080-\uffff]/.test(child.content)
        ? splitText(child, state)
        : [child],
    );
  }
}

/** Renders an emoji token in Zulip's shape. */
export function renderEmoji(tokens: Token[], idx: number): string {
  const target = (tokens[idx].meta as { target: EmojiTarget }).target;
  const title = escapeHtml(target.name.replace(/_/g, ' '));
  const syntax = escapeHtml(`:${target.name}:`);
  if (target.kind === 'image') {
    return `<img alt="${syntax}" class="emoji" src="${escapeHtml(target.url)}" title="${title}">`;
  }
  return `<span aria-label="${title}" class="emoji emoji-${target.code}" role="img" title="${title}">${syntax}</span>`;
}

// Zulip's small departures from CommonMark inline syntax: `_` never makes
// emphasis, ~~x~~ strikes through (with <del>), code spans keep their spaces,
// and <time:...> is a global time.
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './html';

type StateInline = MarkdownIt.StateInline;
type Token = MarkdownIt.Token;

/** Token type of a global time. */
export const TIME_TOKEN = 'zulip_time';

// A <time:...> body longer than this is not a time.
const MAX_TIME_LENGTH = 100;

/** markdown-it inline rule: a run of underscores is plain text (Zulip has no _em_ or __strong__). */
export function underscoreRule(state: StateInline, silent: boolean): boolean {
  const { src, posMax } = state;
  let end = state.pos;
  while (end < posMax && src.charCodeAt(end) === 0x5f /* _ */) end++;
  if (end === state.pos) return false;
  if (!silent) state.pending += src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/**
 * markdown-it inline rule replacing `backticks`: a code span as in CommonMark,
 * but its text is kept as written (Zulip does not trim one space at each end).
 */
export function codeSpanRule(state: StateInline, silent: boolean): boolean {
  const { src, pos: start, posMax: max } = state;
  if (src[start] !== '`') return false;
  let textStart = start + 1;
  while (textStart < max && src[textStart] === '`') textStart++;
  const marker = src.slice(start, textStart);
  // Remember, per run length, the last run seen, so that unmatched openers
  // do not rescan the rest of the text (linear time, as markdown-it does).
  const wholeText = max === src.length;
  if (!(wholeText && state.backticksScanned && (state.backticks[marker.length] ?? 0) <= start)) {
    let runEnd = textStart;
    for (
      let runStart = src.indexOf('`', runEnd);
      runStart !== -1 && runStart < max;
      runStart = src.indexOf('`', runEnd)
    ) {
      runEnd = runStart + 1;
      while (runEnd < max && src[runEnd] === '`') runEnd++;
      if (runEnd - runStart === marker.length) {
        if (!silent) {
          const token = state.push('code_inline', 'code', 0);
          token.markup = marker;
          token.content = src.slice(textStart, runStart).replace(/\n/g, ' ');
        }
        state.pos = runEnd;
        return true;
      }
      if (wholeText) state.backticks[runEnd - runStart] = runStart;
    }
    if (wholeText) state.backticksScanned = true;
  }
  if (!silent) state.pending += marker;
  state.pos = textStart;
  return true;
}

/**
 * markdown-it inline rule: ~~text~~ on one line, as Zulip's
 * `(?<!~)~~([^~\n]+?)~~(?!~)`. The text inside is parsed as usual.
 */
export function strikethroughRule(state: StateInline, silent: boolean): boolean {
  const { src, pos: start, posMax: max } = state;
  if (!src.startsWith('~~', start) || (start > 0 && src[start - 1] === '~')) return false;
  let end = start + 2;
  while (end < max && src[end] !== '~' && src[end] !== '\n') end++;
  if (end === start + 2 || end + 2 > max || !src.startsWith('~~', end) || src[end + 2] === '~')
    return false;

  if (!silent) {
    state.pos = start + 2;
    state.posMax = end;
    state.push('del_open', 'del', 1).markup = '~~';
    state.md.inline.tokenize(state);
    state.push('del_close', 'del', -1).markup = '~~';
    state.posMax = max;
  }
  state.pos = end + 2;
  return true;
}

/**
 * The UTC instant a global time names, as Zulip writes it in `datetime`
 * (e.g. 2017-06-05T22:30:00Z), or undefined when we cannot read it. Accepts a
 * Unix timestamp or an ISO 8601 date and time; no zone means UTC.
 */
export function parseGlobalTime(text: string): string | undefined {
  const trimmed = text.trim();
  let millis: number | undefined;
  if (/^-?\d{1,12}(\.\d+)?$/.test(trimmed)) {
    millis = Math.floor(Number(trimmed)) * 1000;
  } else {
    const m =
      /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)? ?(Z|[+-]\d{2}:?\d{2})?$/i.exec(
        trimmed,
      );
    if (!m) return undefined;
    const [year, month, day, hour = 0, minute = 0, second = 0] = m
      .slice(1, 7)
      .map((part) => Number(part ?? 0));
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
      return undefined;
    millis = Date.UTC(year, month - 1, day, hour, minute, second);
    if (new Date(millis).getUTCDate() !== day) return undefined; // e.g. 2021-02-30
    const zone = m[7];
    if (zone && zone.toUpperCase() !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      millis -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
  }
  const date = new Date(millis);
  if (Number.isNaN(date.getTime())) return undefined;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** markdown-it inline rule: <time:...> with a time we can read; anything else stays text. */
export function timeRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (!src.startsWith('<time:', pos)) return false;
  const bodyStart = pos + 6;
  const limit = Math.min(state.posMax, bodyStart + MAX_TIME_LENGTH);
  let end = bodyStart;
  while (end < limit && src[end] !== '>' && src[end] !== '\n') end++;
  if (end >= limit || src[end] !== '>') return false;
  const text = src.slice(bodyStart, end);
  const datetime = parseGlobalTime(text);
  if (datetime === undefined) return false;
  if (!silent) state.push(TIME_TOKEN, 'time', 0).meta = { datetime, text };
  state.pos = end + 1;
  return true;
}

/** Renders a global time in Zulip's shape. */
export function renderTime(tokens: Token[], idx: number): string {
  const { datetime, text } = tokens[idx].meta as { datetime: string; text: string };
  return `<time datetime="${escapeHtml(datetime)}">${escapeHtml(text)}</time>`;
}

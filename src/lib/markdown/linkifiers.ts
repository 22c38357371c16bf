// Linkifiers in rendered messages and in topics: each pattern matches only
// after the start of the text, whitespace or an opening delimiter, and not
// before a letter or digit; the matched text becomes a link to the URL
// template expanded with the pattern's named groups. Earlier linkifiers win
// where matches overlap, and text already linked is left alone.
import type MarkdownIt from 'markdown-it';
import { PatternError, translatePattern } from './linkifier-patterns';
import { envOf, type CompiledLinkifier } from './types';
import { expandUrlTemplate, parseUrlTemplate } from './url-template';

type StateCore = MarkdownIt.StateCore;
type Token = MarkdownIt.Token;

/** A linkifier as stored: its RE2 pattern and URL template. */
export interface LinkifierSource {
  pattern: string;
  url_template: string;
}

// Before the match: start, (Unicode) whitespace, or an opening delimiter.
const BEFORE = `(^|[\\t\\n\\f\\r \\u0085\\p{Z}'"(,:<])`;
// After it: the end, or anything but a letter or digit.
const AFTER = '(?=$|[^\\p{L}\\p{N}])';
// Stands in front of text that follows another element (a link, a mention):
// matches nothing of BEFORE, so a linkifier does not start right after it.
const NOT_A_BOUNDARY = '\u0003';

/**
 * Compiles `pattern` as a linkifier's matcher; throws a PatternError with
 * RE2's wording when RE2 would refuse it.
 */
export function compileLinkifierPattern(pattern: string): { regex: RegExp; groupNames: string[] } {
  const { source, flags, groupNames } = translatePattern(pattern);
  try {
    return { regex: new RegExp(`${BEFORE}(${source})${AFTER}`, `${flags}gu`), groupNames };
  } catch (error) {
    const reason = String((error as Error).message).replace(/^.*: /, '');
    throw new PatternError(`invalid or unsupported Perl syntax: ${reason}`);
  }
}

const cache = new Map<string, CompiledLinkifier | null>();

/** Compiles a stored linkifier (cached); null when it cannot run. */
export function compileLinkifier(linkifier: LinkifierSource): CompiledLinkifier | null {
  const key = `${linkifier.pattern}\u0000${linkifier.url_template}`;
  let compiled = cache.get(key);
  if (compiled === undefined) {
    const template = parseUrlTemplate(linkifier.url_template);
    try {
      compiled = template
        ? { regex: compileLinkifierPattern(linkifier.pattern).regex, template }
        : null;
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      compiled = null;
    }
    if (cache.size > 1000) cache.clear();
    cache.set(key, compiled);
  }
  return compiled;
}

/** One linkifier match: where the linked text starts and ends, and its URL. */
interface Match {
  start: number;
  end: number;
  url: string;
}

// Every match of `linkifier` in `text`, left to right; the next search starts
// right after the linked text, so the character after it may begin the next match.
function matchesOf(linkifier: CompiledLinkifier, text: string): Match[] {
  const out: Match[] = [];
  const regex = linkifier.regex;
  regex.lastIndex = 0;
  for (;;) {
    const m = regex.exec(text);
    if (!m) break;
    const start = m.index + m[1].length;
    const end = start + m[2].length;
    if (m[2].length > 0) {
      const values: Record<string, string | undefined> = { ...(m.groups ?? {}) };
      out.push({ start, end, url: expandUrlTemplate(linkifier.template, values) });
    }
    regex.lastIndex = end > m.index ? end : m.index + 1;
  }
  return out;
}

/** The links of a topic: linkifier matches and bare URLs, earlier linkifiers first where they overlap. */
export function topicLinks(
  topic: string,
  linkifiers: CompiledLinkifier[],
  bareUrls: (text: string) => { index: number; lastIndex: number; url: string; text: string }[],
): { text: string; url: string }[] {
  const found: (Match & { precedence: number })[] = [];
  linkifiers.forEach((linkifier, precedence) => {
    for (const m of matchesOf(linkifier, topic)) found.push({ ...m, precedence });
  });
  for (const link of bareUrls(topic))
    found.push({ start: link.index, end: link.lastIndex, url: link.url, precedence: Infinity });
  const kept: Match[] = [];
  for (const m of found.sort((a, b) => a.precedence - b.precedence || a.start - b.start)) {
    if (kept.some((k) => m.start < k.end && k.start < m.end)) continue;
    kept.push(m);
  }
  return kept
    .sort((a, b) => a.start - b.start)
    .map((m) => ({ text: topic.slice(m.start, m.end), url: m.url }));
}

// A piece of inline content: text still open to linkifiers, or finished tokens.
type Piece = { text: string; boundary: boolean } | Token[];

function newToken(
  state: StateCore,
  type: string,
  tag: string,
  nesting: -1 | 0 | 1,
  level: number,
): Token {
  const token = new state.Token(type, tag, nesting);
  token.level = level;
  return token;
}

// Applies `linkifier` to the open text pieces, turning matches into link tokens.
function applyLinkifier(
  pieces: Piece[],
  linkifier: CompiledLinkifier,
  state: StateCore,
  level: number,
): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    if (Array.isArray(piece)) {
      out.push(piece);
      continue;
    }
    const offset = piece.boundary ? 0 : NOT_A_BOUNDARY.length;
    const text = piece.boundary ? piece.text : NOT_A_BOUNDARY + piece.text;
    let last = 0;
    let boundary = piece.boundary;
    for (const m of matchesOf(linkifier, text)) {
      const [start, end] = [m.start - offset, m.end - offset];
      if (start > last) out.push({ text: piece.text.slice(last, start), boundary });
      const open = newToken(state, 'link_open', 'a', 1, level);
      open.attrs = [['href', m.url]];
      open.markup = 'linkifier';
      const inner = newToken(state, 'text', '', 0, level + 1);
      inner.content = piece.text.slice(start, end);
      out.push([open, inner, newToken(state, 'link_close', 'a', -1, level)]);
      last = end;
      boundary = false;
    }
    if (last === 0) out.push(piece);
    else if (last < piece.text.length) out.push({ text: piece.text.slice(last), boundary: false });
  }
  return out;
}

// Whether text right after `token` may begin a linkifier match.
function startsFresh(token: Token | undefined): boolean {
  return (
    token === undefined ||
    token.type === 'softbreak' ||
    token.type === 'hardbreak' ||
    (token.nesting === 1 && token.type !== 'link_open')
  );
}

/** markdown-it core rule: links the text that the organization's linkifiers match. */
export function linkifierRule(state: StateCore): void {
  const linkifiers = envOf(state).ctx.linkifiers ?? [];
  if (linkifiers.length === 0) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children: Token[] = [];
    let insideLink = 0;
    block.children.forEach((child, index) => {
      if (child.type === 'link_open') insideLink++;
      if (child.type === 'link_close') insideLink--;
      if (child.type !== 'text' || insideLink > 0) {
        children.push(child);
        return;
      }
      let pieces: Piece[] = [
        { text: child.content, boundary: startsFresh(block.children![index - 1]) },
      ];
      for (const linkifier of linkifiers)
        pieces = applyLinkifier(pieces, linkifier, state, child.level);
      for (const piece of pieces) {
        if (Array.isArray(piece)) children.push(...piece);
        else {
          const text = newToken(state, 'text', '', 0, child.level);
          text.content = piece.text;
          children.push(text);
        }
      }
    });
    block.children = children;
  }
}

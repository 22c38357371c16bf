// Fenced blocks, with Zulip's rules (zerver/lib/markdown/fenced_code.py):
// ``` or ~~~ with an optional language; ```quote (or quoted) and ```spoiler
// header hold Markdown; ```math holds TeX (see math.ts); any other fence
// holds code. A bare fence equal to the
// innermost open one closes it, other fence lines inside a quote or spoiler
// open nested blocks, and an unclosed block runs to the end.
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './html';
import { codeLanguageName } from './languages';
import { MATH_BLOCK_TOKEN } from './math';

type StateBlock = MarkdownIt.StateBlock;
type Token = MarkdownIt.Token;

/** A fence opening line. */
interface FenceLine {
  /** The fence itself, e.g. ``` or ~~~~. */
  fence: string;
  /** The language in lowercase, if any. */
  lang?: string;
  /** Text after the language (a spoiler's header). */
  header: string;
}

type FenceKind = 'code' | 'math' | 'quote' | 'spoiler';

/** Parses a fence opening line (without its indentation), as Zulip's FENCE_RE. */
export function parseFenceLine(line: string): FenceLine | undefined {
  const marker = line[0];
  if (marker !== '`' && marker !== '~') return undefined;
  let length = 0;
  while (line[length] === marker) length++;
  if (length < 3) return undefined;
  const fence = line.slice(0, length);
  let rest = line.slice(length).trim();
  if (rest === '') return { fence, header: '' };
  if (rest.includes('`') || rest.includes('~')) return undefined;
  if (rest.startsWith('{')) rest = rest.slice(1);
  if (rest.startsWith('.')) rest = rest.slice(1);
  const lang = /^[a-zA-Z0-9_+\-./#]+/.exec(rest)?.[0];
  if (lang === undefined) return undefined;
  return { fence, lang: lang.toLowerCase(), header: rest.slice(lang.length).trim() };
}

function kindOf(lang: string | undefined): FenceKind {
  if (lang === 'quote' || lang === 'quoted') return 'quote';
  if (lang === 'math') return 'math';
  return lang === 'spoiler' ? 'spoiler' : 'code';
}

// Code and math fences hold no Markdown, so no fence opens inside them.
function holdsText(lang: string | undefined): boolean {
  const kind = kindOf(lang);
  return kind === 'code' || kind === 'math';
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

/**
 * The line that closes the block opened on `startLine` (endLine when none
 * does), and whether a closing fence was found there.
 */
function findClose(state: StateBlock, startLine: number, endLine: number, opening: FenceLine) {
  const open = [{ fence: opening.fence, isCode: holdsText(opening.lang) }];
  for (let line = startLine + 1; line < endLine; line++) {
    const isBlank = state.bMarks[line] + state.tShift[line] >= state.eMarks[line];
    // A line outdented out of the enclosing list item or quote ends the block.
    if (!isBlank && state.sCount[line] < state.blkIndent) return { close: line, found: false };
    if (state.sCount[line] - state.blkIndent >= 4) continue;
    const text = lineText(state, line).trimEnd();
    const innermost = open[open.length - 1];
    if (text === innermost.fence) {
      open.pop();
      if (open.length === 0) return { close: line, found: true };
    } else if (!innermost.isCode) {
      const nested = parseFenceLine(text);
      if (nested) open.push({ fence: nested.fence, isCode: holdsText(nested.lang) });
    }
  }
  return { close: endLine, found: false };
}

/** markdown-it block rule replacing `fence`: code, quote and spoiler fences. */
export function fenceRule(
  state: StateBlock,
  startLine: number,
  endLine: number,
  silent: boolean,
): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const opening = parseFenceLine(lineText(state, startLine));
  if (!opening) return false;
  if (silent) return true;

  const { close, found } = findClose(state, startLine, endLine, opening);
  const kind = kindOf(opening.lang);
  if (kind === 'code') {
    const token = state.push('fence', 'code', 0);
    token.info = opening.lang ?? '';
    token.markup = opening.fence;
    token.content = state.getLines(startLine + 1, close, state.sCount[startLine], true);
    token.map = [startLine, close];
  } else if (kind === 'math') {
    const token = state.push(MATH_BLOCK_TOKEN, 'p', 0);
    token.markup = opening.fence;
    token.content = state.getLines(startLine + 1, close, state.sCount[startLine], true);
    token.map = [startLine, close];
  } else if (!isBlankRange(state, startLine + 1, close)) {
    pushMarkdownBlock(state, kind, opening, startLine, close);
  }
  state.line = close + (found ? 1 : 0);
  return true;
}

function isBlankRange(state: StateBlock, from: number, to: number): boolean {
  for (let line = from; line < to; line++) if (!state.isEmpty(line)) return false;
  return true;
}

// A quote or spoiler: its lines are parsed as Markdown inside the container.
function pushMarkdownBlock(
  state: StateBlock,
  kind: FenceKind,
  opening: FenceLine,
  startLine: number,
  close: number,
): void {
  const oldParentType = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote';
  state.lineMax = close;

  if (kind === 'quote') {
    const token = state.push('blockquote_open', 'blockquote', 1);
    token.markup = opening.fence;
    token.map = [startLine, close];
  } else {
    state.push('spoiler_open', 'div', 1).map = [startLine, close];
    if (opening.header !== '') {
      state.push('paragraph_open', 'p', 1);
      const header = state.push('inline', '', 0);
      header.content = opening.header;
      header.map = [startLine, startLine + 1];
      header.children = [];
      state.push('paragraph_close', 'p', -1);
    }
    state.push('spoiler_content', 'div', 0);
  }
  state.md.block.tokenize(state, startLine + 1, close);
  if (kind === 'quote') state.push('blockquote_close', 'blockquote', -1).markup = opening.fence;
  else state.push('spoiler_close', 'div', -1);

  state.lineMax = oldLineMax;
  state.parentType = oldParentType;
}

/**
 * Renders a fenced or indented code block in Zulip's shape (without syntax
 * highlighting): trailing whitespace and blank lines around the code removed.
 */
export function renderCodeBlock(tokens: Token[], idx: number): string {
  const token = tokens[idx];
  const lines = token.content.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  if (lines.length === 0) return '';
  const lang = token.type === 'fence' ? token.info : '';
  const langAttr = lang ? ` data-code-language="${escapeHtml(codeLanguageName(lang))}"` : '';
  return `<div class="codehilite"${langAttr}><pre><span></span><code>${escapeHtml(lines.join('\n'))}\n</code></pre></div>\n`;
}

/** Renderer rules for the spoiler tokens, in Zulip's shape. */
export const spoilerRenderers = {
  spoiler_open: () => '<div class="spoiler-block"><div class="spoiler-header">\n',
  spoiler_content: () => '</div><div class="spoiler-content" aria-hidden="true">\n',
  spoiler_close: () => '</div></div>\n',
};

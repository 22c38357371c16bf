// TeX math, as Zulip renders it with KaTeX: $$...$$ inline (a single $ is
// plain text) and ```math fences as display math, one expression per
// blank-line-separated paragraph. TeX that KaTeX rejects is shown as written
// in a <span class="tex-error">. The HTML KaTeX writes is trusted (it escapes
// its input and `trust` is off) and bypasses the sanitizer; see trusted.ts.
import type Katex from 'katex';
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './html';
import { trustedHtml } from './trusted';
import { envOf } from './types';

type StateInline = MarkdownIt.StateInline;
type Token = MarkdownIt.Token;

/** Token type of inline math; `content` is the TeX. */
export const MATH_INLINE_TOKEN = 'zulip_math_inline';
/** Token type of a math fence; `content` is the TeX of the whole block. */
export const MATH_BLOCK_TOKEN = 'zulip_math_block';

// $$ body $$: the body starts with neither a newline, `_` nor `$`, and holds
// no newline and no `$` other than an escaped \$; not followed by another $
// nor by a letter or digit.
const INLINE_MATH = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)(?![\p{L}\p{N}_])/uy;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

// KaTeX 0.18 prefixes the classes of its layout boxes with "katex-"; Zulip's
// clients style (and parse) the unprefixed names earlier versions write.
const PREFIXED_CLASSES = new Set(
  [
    'accent',
    'base',
    'fix',
    'hdashline',
    'hline',
    'inner',
    'newline',
    'overlay',
    'overline',
    'root',
    'rule',
    'sizing',
    'smash',
    'sout',
    'stretchy',
    'strut',
    'tag',
    'thinbox',
    'underline',
    'vbox',
  ].map((name) => `katex-${name}`),
);

function withClassicClasses(html: string): string {
  return html.replace(
    /class="([^"]*)"/g,
    (_, classes: string) =>
      `class="${classes
        .split(' ')
        .map((name) => (PREFIXED_CLASSES.has(name) ? name.slice(6) : name))
        .join(' ')}"`,
  );
}

let katex: typeof Katex | undefined;

/** KaTeX's HTML for `tex`, or undefined when it is not TeX that KaTeX accepts. */
export function renderTex(tex: string, displayMode: boolean): string | undefined {
  // Loaded at the first math (a tenth of a second): most processes render none.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  katex ??= require('katex') as typeof Katex;
  try {
    const html = katex.renderToString(tex, {
      displayMode,
      throwOnError: true,
      strict: 'ignore',
      trust: false,
      output: 'htmlAndMathml',
    });
    return withClassicClasses(html);
  } catch {
    return undefined;
  }
}

/** markdown-it inline rule: $$TeX$$, as Zulip's inline math pattern. */
export function mathInlineRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (!src.startsWith('$$', pos)) return false;
  // Not right after a `$` or a letter or digit.
  if (pos > 0 && (src[pos - 1] === '$' || WORD_CHAR.test(src[pos - 1]))) return false;
  INLINE_MATH.lastIndex = pos;
  const match = INLINE_MATH.exec(src.slice(0, state.posMax));
  if (!match) return false;
  if (!silent) state.push(MATH_INLINE_TOKEN, 'span', 0).content = match[1];
  state.pos = pos + match[0].length;
  return true;
}

/** Renders inline math, or the source in an error span when KaTeX rejects it. */
export function renderMathInline(
  tokens: Token[],
  idx: number,
  _options: unknown,
  env: MarkdownIt.Env | undefined,
): string {
  const tex = tokens[idx].content;
  const html =
    renderTex(tex, false) ?? `<span class="tex-error">${escapeText(`$$${tex}$$`)}</span>`;
  return trustedHtml(envOf({ env: env ?? {} }), html);
}

/**
 * Renders a math fence: each paragraph as display math (or an error span),
 * together in one paragraph, as Zulip does.
 */
export function renderMathBlock(
  tokens: Token[],
  idx: number,
  _options: unknown,
  env: MarkdownIt.Env | undefined,
): string {
  const tex = tokens[idx].content.replace(/\n$/, '');
  const parts = tex
    .split('\n\n')
    .map(
      (paragraph) =>
        renderTex(paragraph, true) ??
        `<span class="tex-error">${escapeHtml(paragraph).replace(/'/g, '&#x27;')}</span>`,
    );
  return `<p>${trustedHtml(envOf({ env: env ?? {} }), parts.join('\n\n'))}</p>\n`;
}

// Text escaped as Zulip writes the text of an inline error (quotes kept).
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

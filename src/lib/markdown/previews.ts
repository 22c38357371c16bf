// Inline image previews, placed as Zulip places them: a link to an uploaded
// image, or to an image file elsewhere, outside quotes, gets a
// <div class="message_inline_image"> after its paragraph (at the end of its
// list item, in a tight list; at the end of the message, anywhere else). A
// paragraph (or list item) holding nothing but the bare URL loses its link,
// so the preview stands in for it. Each URL is previewed once; a message with
// more than 24 such URLs gets none. The server makes no thumbnails, so the
// image is the original file (external images are not proxied). Links to MP4
// and WebM videos get a video player in the same place. The realm's
// inline_image_preview setting (PATCH /realm) turns all of this off.
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './html';
import { envOf, type ZulipEnv } from './types';

type StateCore = MarkdownIt.StateCore;
type Token = MarkdownIt.Token;

/** Token type of an image preview; meta is a PreviewMeta. */
export const IMAGE_PREVIEW_TOKEN = 'zulip_image_preview';

type PreviewMeta = {
  /** Where the preview links to: the link's own href. */
  href: string;
  /** The link's text, when it differs from its URL. */
  title?: string;
  /** The image shown, or the video played. */
  src: string;
  /** Whether it is a video player rather than an image. */
  video: boolean;
};

// More previewable URLs than this in one message, and none is previewed.
const PREVIEW_LIMIT = 24;

// File extensions previewed as images (as links' path endings).
const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];

const UPLOADS_PREFIX = '/user_uploads/';

/** A link found in the message, with where it sits. */
interface FoundLink {
  href: string;
  /** The text the link starts with (before any markup inside it), or undefined. */
  text?: string;
  /** The inline token holding the link. */
  inline: Token;
  /** Index of link_open among the inline token's children. */
  open: number;
  /** Index of the inline token in the block tokens. */
  at: number;
  /** What directly holds the link. */
  holder: 'p' | 'li' | 'other';
}

/** markdown-it core rule: adds the image previews (run after links are resolved). */
export function imagePreviewRule(state: StateCore): void {
  const env = envOf(state);
  if (env.ctx.inlineImagePreview === false) return;
  const found = findLinks(state.tokens);
  const previewable = new Set(found.map((link) => link.href));
  if (previewable.size === 0 || previewable.size > PREVIEW_LIMIT) return;

  // Previews are planned against the original token indexes, then put in
  // place in one pass: before the token at an index, or at the very end.
  const plan: Plan = { before: new Map(), atEnd: [], removed: new Set(), links: [] };
  const done = new Set<string>();
  for (const link of found) {
    if (done.has(link.href)) continue;
    done.add(link.href);
    if (isVideo(link.href)) {
      planPreview(state, link, { src: link.href, video: true }, plan);
      continue;
    }
    const image = imageSource(link.href, env);
    if (image === undefined) continue;
    env.result.hasImage = true;
    planPreview(state, link, { src: image, video: false }, plan);
  }
  for (const { children, open, close } of plan.links) children.splice(open, close - open + 1);
  const out: Token[] = [];
  state.tokens.forEach((token, i) => {
    out.push(...(plan.before.get(i) ?? []));
    if (!plan.removed.has(i)) out.push(token);
  });
  out.push(...(plan.before.get(state.tokens.length) ?? []), ...plan.atEnd);
  state.tokens = out;
}

/** Where previews go (before block token i, or after everything), and what they replace. */
interface Plan {
  before: Map<number, Token[]>;
  atEnd: Token[];
  /** Block tokens (of paragraphs) left out. */
  removed: Set<number>;
  /** Links (first in their inline token, at most one each) left out. */
  links: { children: Token[]; open: number; close: number }[];
}

// Links outside quotes, in document order.
function findLinks(tokens: Token[]): FoundLink[] {
  const found: FoundLink[] = [];
  let quoteDepth = 0;
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at];
    if (token.type === 'blockquote_open') quoteDepth++;
    else if (token.type === 'blockquote_close') quoteDepth--;
    if (token.type !== 'inline' || quoteDepth > 0 || !token.children) continue;
    const holderOfBlock = blockHolder(tokens, at);
    const children = token.children;
    let depth = 0;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child.type === 'link_open') {
        found.push({
          href: String(child.attrGet('href') ?? ''),
          text: leadingText(children, i + 1),
          inline: token,
          open: i,
          at,
          holder: depth === 0 ? holderOfBlock : 'other',
        });
      }
      if (child.type !== 'link_open' && child.type !== 'link_close') depth += child.nesting;
    }
  }
  return found;
}

// What holds an inline token's content: a shown paragraph, a tight list item
// (whose paragraph is hidden), or something else (a heading, a table cell).
function blockHolder(tokens: Token[], at: number): FoundLink['holder'] {
  const before = tokens[at - 1];
  if (before?.type !== 'paragraph_open') return 'other';
  return before.hidden ? (tokens[at - 2]?.type === 'list_item_open' ? 'li' : 'other') : 'p';
}

function leadingText(children: Token[], from: number): string | undefined {
  let text = '';
  for (let i = from; i < children.length && children[i].type === 'text'; i++)
    text += children[i].content;
  return text === '' ? undefined : text;
}

// Whether a link is to a video browsers play everywhere (by its ending).
function isVideo(href: string): boolean {
  return /\.(mp4|webm)$/i.test(href);
}

// The image a link previews, or undefined when it is not previewed.
function imageSource(href: string, env: ZulipEnv): string | undefined {
  if (href.startsWith(UPLOADS_PREFIX)) {
    const pathId = href.slice(UPLOADS_PREFIX.length).split(/[?#]/, 1)[0];
    const known = env.ctx.isUploadedImage?.(pathId);
    return (known ?? hasImageExtension(pathId)) ? href : undefined;
  }
  let url: URL;
  try {
    url = new URL(href, 'http://relative.invalid');
  } catch {
    return undefined;
  }
  if (url.host === 'pasteboard.co' || !hasImageExtension(url.pathname)) return undefined;
  return githubRawUrl(url) ?? href;
}

function hasImageExtension(path: string): boolean {
  const lower = path.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

// A file page on GitHub (…/owner/repo/blob/…) shows the raw file instead.
function githubRawUrl(url: URL): string | undefined {
  if (url.hostname !== 'github.com' && !url.hostname.endsWith('.github.com')) return undefined;
  const parts = url.pathname.split('/');
  if (parts.length <= 3 || parts[3] !== 'blob') return undefined;
  return `https://raw.githubusercontent.com${[...parts.slice(0, 3), ...parts.slice(4)].join('/')}`;
}

function planPreview(
  state: StateCore,
  link: FoundLink,
  shown: { src: string; video: boolean },
  plan: Plan,
): void {
  const { tokens } = state;
  const children = link.inline.children!;
  const close = findLinkClose(children, link.open);
  const urlIsText = link.text === undefined || link.text === link.href;
  const preview = new state.Token(IMAGE_PREVIEW_TOKEN, 'div', 0);
  preview.block = true;
  preview.meta = {
    href: link.href,
    title: urlIsText ? undefined : link.text,
    ...shown,
  } satisfies PreviewMeta;
  const insertBefore = (index: number) =>
    plan.before.set(index, [...(plan.before.get(index) ?? []), preview]);

  if (link.holder === 'li') {
    // At the end of the list item; a lone bare URL gives way to its preview.
    insertBefore(listItemEnd(tokens, link.at));
    const after = children.slice(close + 1, nextElement(children, close + 1));
    if (urlIsText && link.open === 0 && isBlankText(after))
      plan.links.push({ children, open: link.open, close });
  } else if (link.holder === 'p') {
    // After the paragraph, which goes when it holds nothing but the bare URL.
    insertBefore(link.at + 2);
    if (urlIsText && isOnlyElement(children, link.open, close))
      for (const i of [link.at - 1, link.at, link.at + 1]) plan.removed.add(i);
  } else {
    plan.atEnd.push(preview);
  }
}

function findLinkClose(children: Token[], open: number): number {
  for (let i = open + 1; i < children.length; i++) if (children[i].type === 'link_close') return i;
  return children.length - 1;
}

// Index of the first token from `from` that is an element (not text).
function nextElement(children: Token[], from: number): number {
  let i = from;
  while (i < children.length && children[i].type === 'text') i++;
  return i;
}

function isBlankText(tokens: Token[]): boolean {
  return tokens.every((t) => t.type === 'text' && t.content.trim() === '');
}

// Whether the link is the paragraph's only element, with only blank text around it.
function isOnlyElement(children: Token[], open: number, close: number): boolean {
  return (
    isBlankText(children.slice(0, open)) &&
    children.slice(close + 1).every((t) => t.type === 'text' && t.content.trim() === '')
  );
}

// Index of the list_item_close of the item whose paragraph holds `inlineAt`.
function listItemEnd(tokens: Token[], inlineAt: number): number {
  let depth = 0;
  for (let i = inlineAt - 2; i < tokens.length; i++) {
    if (tokens[i].type === 'list_item_open') depth++;
    else if (tokens[i].type === 'list_item_close' && --depth === 0) return i;
  }
  return tokens.length;
}

/** Renders an image preview (or video player) in Zulip's shape. */
export function renderImagePreview(tokens: Token[], idx: number): string {
  const { href, title, src, video } = tokens[idx].meta as PreviewMeta;
  const titleAttr = title === undefined ? '' : ` title="${escapeHtml(title)}"`;
  const link = `<a href="${escapeHtml(href)}"${titleAttr}>`;
  if (video)
    return `<div class="message_inline_image message_inline_video">${link}<video preload="metadata" src="${escapeHtml(src)}"></video></a></div>`;
  return `<div class="message_inline_image">${link}<img src="${escapeHtml(src)}"></a></div>`;
}

// The last pass over the parsed message: quotes silence their mentions, links
// are rewritten (or dropped) and every fact the RenderResult reports is
// collected here, from the same tokens that are rendered.
import type MarkdownIt from 'markdown-it';
import { CHANNEL_LINK_TOKEN } from './channels';
import { isFalsePositiveFuzzyLink, resolveLink } from './links';
import { MENTION_TOKEN, mentionTarget } from './mentions';
import { envOf, type ZulipEnv } from './types';

type StateCore = MarkdownIt.StateCore;
type Token = MarkdownIt.Token;

/** markdown-it core rule: silences quoted mentions, finishes links, fills the RenderResult. */
export function finishRule(state: StateCore): void {
  const env = envOf(state);
  let quoteDepth = 0;
  for (const token of state.tokens) {
    if (token.type === 'blockquote_open') quoteDepth++;
    else if (token.type === 'blockquote_close') quoteDepth--;
    else if (token.type === 'inline' && token.children) {
      token.children = finishInline(token.children, quoteDepth > 0, env, state);
    }
  }
  env.result.hasAttachment = env.result.uploadPathIds.length > 0;
}

function finishInline(
  children: Token[],
  inQuote: boolean,
  env: ZulipEnv,
  state: StateCore,
): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < children.length; i++) {
    const token = children[i];
    if (token.type === MENTION_TOKEN) {
      countMention(token, inQuote, env);
    } else if (token.type === CHANNEL_LINK_TOKEN) {
      env.result.hasLink = true;
    } else if (token.type === 'link_open') {
      const close = findLinkClose(children, i);
      const keep = finishLink(token, children.slice(i + 1, close), env);
      if (!keep) {
        // Not a link after all: keep its text, drop the <a>.
        out.push(...children.slice(i + 1, close));
        i = close;
        continue;
      }
      if (isEmptyText(children.slice(i + 1, close))) {
        out.push(token, textToken(String(token.attrGet('href')), token, state), children[close]);
        i = close;
        continue;
      }
    }
    out.push(token);
  }
  return out;
}

// Mentions in a quote are silent (Zulip rewrites them to @_**...**).
function countMention(token: Token, inQuote: boolean, env: ZulipEnv): void {
  const target = mentionTarget(token);
  if (inQuote) target.silent = true;
  const { result } = env;
  switch (target.kind) {
    case 'user':
      (target.silent ? result.silentlyMentionedUserIds : result.mentionedUserIds).add(target.id);
      break;
    case 'group':
      if (!target.silent) result.mentionedGroupIds.add(target.id);
      break;
    case 'stream-wildcard':
      if (!target.silent) result.streamWildcard = true;
      break;
    case 'topic-wildcard':
      if (!target.silent) result.topicWildcard = true;
      break;
  }
}

function findLinkClose(children: Token[], open: number): number {
  for (let i = open + 1; i < children.length; i++) if (children[i].type === 'link_close') return i;
  return children.length;
}

// Rewrites a link's href and attributes; false when it must not be a link.
function finishLink(open: Token, inner: Token[], env: ZulipEnv): boolean {
  const isFuzzyAutolink = open.markup === 'linkify' && inner.length === 1;
  if (isFuzzyAutolink && isFalsePositiveFuzzyLink(inner[0].content)) return false;
  const resolved = resolveLink(String(open.attrGet('href') ?? ''), env.ctx.baseUrl);
  if (!resolved) return false;

  open.attrSet('href', resolved.href);
  if (resolved.external) {
    open.attrSet('target', '_blank');
    open.attrSet('rel', 'noopener noreferrer');
  }
  const { result } = env;
  result.hasLink = true;
  if (resolved.uploadPathId !== undefined) {
    if (!result.uploadPathIds.includes(resolved.uploadPathId))
      result.uploadPathIds.push(resolved.uploadPathId);
    if (resolved.isUploadedImage) result.hasImage = true;
  }
  return true;
}

// Zulip shows the href as the text of a link written with empty text.
function isEmptyText(inner: Token[]): boolean {
  return inner.every((token) => token.type === 'text' && token.content.trim() === '');
}

function textToken(content: string, like: Token, state: StateCore): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  token.level = like.level + 1;
  return token;
}

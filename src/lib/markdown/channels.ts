// Links to channels, topics and messages: #**channel**, #**channel>topic** and
// #**channel>topic@123**. Follows Zulip's StreamPattern, StreamTopicPattern,
// StreamTopicMessagePattern and zerver/lib/url_encoding.py.
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './html';
import { mayStartAt, nameEnd } from './mentions';
import { envOf } from './types';

type StateInline = MarkdownIt.StateInline;
type Token = MarkdownIt.Token;

/** Token type of a resolved channel, topic or message link. */
export const CHANNEL_LINK_TOKEN = 'zulip_channel_link';

/** How Zulip displays the empty topic ("realm_empty_topic_display_name"). */
const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** What a channel link points to; kept in the token's meta until rendering. */
export type ChannelLinkTarget = {
  streamId: number;
  streamName: string;
  /** Absent for a plain channel link. */
  topic?: string;
  /** Present for a link to one message. */
  messageId?: number;
};

// Lone surrogates make encodeURIComponent throw; Python would refuse them too.
function wellFormed(s: string): string {
  return s.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

/**
 * Encodes a narrow URL component as Zulip does: percent-encoding with only
 * letters, digits and `_.-~*` kept, then `%` written as `.` and `.` as `.2E`.
 */
export function encodeHashComponent(s: string): string {
  const encoded = encodeURIComponent(wellFormed(s)).replace(
    /[!'()]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return encoded.replace(/[%.]/g, (c) => (c === '%' ? '.' : '.2E'));
}

/** The "12-channel-name" slug of a channel in narrow URLs. */
export function channelSlug(streamId: number, streamName: string): string {
  return `${streamId}-${encodeHashComponent(streamName.replace(/ /g, '-'))}`;
}

/** markdown-it inline rule: #**channel**, #**channel>topic**, #**channel>topic@123**. */
export function channelLinkRule(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  // No links inside link text, and not right after "[" (so [#**x**](url) stays one link).
  if (state.linkLevel > 0 || !src.startsWith('#**', pos) || !mayStartAt(src, pos, false))
    return false;
  const start = pos + 3;
  const end = nameEnd(src, start, posMax);
  if (end <= start || end + 2 > posMax || src[end + 1] !== '*') return false;

  const target = resolveChannelLink(src.slice(start, end), state);
  if (!target) return false;
  if (!silent) state.push(CHANNEL_LINK_TOKEN, 'a', 0).meta = { target };
  state.pos = end + 2;
  return true;
}

// What the text between #** and ** links to, or undefined if no channel matches.
function resolveChannelLink(text: string, state: StateInline): ChannelLinkTarget | undefined {
  const { ctx } = envOf(state);
  const separator = text.indexOf('>');
  if (separator > 0) {
    const stream = ctx.streamByName(text.slice(0, separator));
    if (stream) {
      const rest = text.slice(separator + 1);
      const at = rest.lastIndexOf('@');
      const digits = at >= 0 ? rest.slice(at + 1) : '';
      const target: ChannelLinkTarget = {
        streamId: stream.id,
        streamName: stream.name,
        topic: rest,
      };
      if (/^\d{1,15}$/.test(digits)) {
        target.topic = rest.slice(0, at);
        target.messageId = Number(digits);
      }
      return target;
    }
  }
  // A channel whose name itself holds ">" can still be linked as a whole.
  const stream = ctx.streamByName(text);
  return stream && { streamId: stream.id, streamName: stream.name };
}

/** The target of a channel link token. */
export function channelLinkTarget(token: Token): ChannelLinkTarget {
  return (token.meta as { target: ChannelLinkTarget }).target;
}

/** Renders a channel, topic or message link in Zulip's shape. */
export function renderChannelLink(tokens: Token[], idx: number): string {
  const { streamId, streamName, topic, messageId } = channelLinkTarget(tokens[idx]);
  const channelUrl = `/#narrow/channel/${channelSlug(streamId, streamName)}`;
  const channelText = escapeHtml(`#${streamName}`);
  if (topic === undefined) {
    return `<a class="stream" data-stream-id="${streamId}" href="${escapeHtml(channelUrl)}">${channelText}</a>`;
  }
  const topicUrl = `${channelUrl}/topic/${encodeHashComponent(topic)}`;
  const topicText = topic === '' ? `<em>${EMPTY_TOPIC_DISPLAY_NAME}</em>` : escapeHtml(topic);
  const text = `${channelText} &gt; ${topicText}`;
  if (messageId === undefined) {
    return `<a class="stream-topic" data-stream-id="${streamId}" href="${escapeHtml(topicUrl)}">${text}</a>`;
  }
  return `<a class="message-link" href="${escapeHtml(`${topicUrl}/near/${messageId}`)}">${text} @ 💬</a>`;
}

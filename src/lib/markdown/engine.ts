// The markdown-it parser configured for Zulip's dialect: CommonMark with
// raw HTML off, newlines as <br>, bare URLs linked, no reference links, no
// setext headings, no images, no <url> autolinks, no _underscore_ emphasis,
// code spans untrimmed, plus Zulip's fences, $$TeX$$ and ```math, mentions,
// channel links, emoji, global times, the organization's linkifiers and
// inline image previews.
import MarkdownIt from 'markdown-it';
import { CHANNEL_LINK_TOKEN, channelLinkRule, renderChannelLink } from './channels';
import { EMOJI_TOKEN, emojiRule, renderEmoji, typedEmojiRule } from './emoji-syntax';
import { fenceRule, renderCodeBlock, spoilerRenderers } from './fences';
import { finishRule } from './finish';
import {
  TIME_TOKEN,
  codeSpanRule,
  renderTime,
  strikethroughRule,
  timeRule,
  underscoreRule,
} from './inline-syntax';
import { linkifierRule } from './linkifiers';
import { isAllowedLink } from './links';
import {
  MATH_BLOCK_TOKEN,
  MATH_INLINE_TOKEN,
  mathInlineRule,
  renderMathBlock,
  renderMathInline,
} from './math';
import { MENTION_TOKEN, mentionRule, renderMention } from './mentions';
import { IMAGE_PREVIEW_TOKEN, imagePreviewRule, renderImagePreview } from './previews';

/** Builds a parser for Zulip-flavoured Markdown (stateless; safe to share). */
export function createZulipMarkdown(): MarkdownIt.MarkdownIt {
  const md = new MarkdownIt('default', {
    html: false,
    breaks: true,
    linkify: true,
    typographer: false,
  });
  md.linkify.set({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: false });
  md.validateLink = isAllowedLink;

  md.block.ruler.before('fence', 'zulip_fence', fenceRule, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.inline.ruler.before('backticks', 'zulip_code_span', codeSpanRule);
  md.inline.ruler.before('emphasis', 'zulip_underscore', underscoreRule);
  md.inline.ruler.before('emphasis', 'zulip_mention', mentionRule);
  md.inline.ruler.before('emphasis', 'zulip_math', mathInlineRule);
  md.inline.ruler.before('emphasis', 'zulip_channel_link', channelLinkRule);
  md.inline.ruler.before('emphasis', 'zulip_time', timeRule);
  md.inline.ruler.before('strikethrough', 'zulip_strikethrough', strikethroughRule);
  md.inline.ruler.after('linkify', 'zulip_emoji', emojiRule);
  md.core.ruler.after('text_join', 'zulip_typed_emoji', typedEmojiRule);
  md.core.ruler.before('zulip_typed_emoji', 'zulip_linkifiers', linkifierRule);
  md.core.ruler.after('zulip_typed_emoji', 'zulip_finish', finishRule);
  md.core.ruler.after('zulip_finish', 'zulip_image_previews', imagePreviewRule);
  md.disable([
    'fence',
    'backticks',
    'strikethrough',
    'reference',
    'lheading',
    'image',
    'autolink',
    'html_block',
    'html_inline',
  ]);

  const rules = md.renderer.rules;
  rules.fence = renderCodeBlock;
  rules.code_block = renderCodeBlock;
  rules[MENTION_TOKEN] = renderMention;
  rules[CHANNEL_LINK_TOKEN] = renderChannelLink;
  rules[EMOJI_TOKEN] = renderEmoji;
  rules[TIME_TOKEN] = renderTime;
  rules[MATH_INLINE_TOKEN] = renderMathInline;
  rules[MATH_BLOCK_TOKEN] = renderMathBlock;
  rules[IMAGE_PREVIEW_TOKEN] = renderImagePreview;
  Object.assign(rules, spoilerRenderers);
  return md;
}

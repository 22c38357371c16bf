// The last line of defence: every rendered message passes through an
// allowlist of exactly the tags, attributes, classes and URL schemes the
// renderer produces. Anything else (a renderer bug, a hostile name or URL
// that slipped through) is dropped.
import sanitizeHtml from 'sanitize-html';
import { ALLOWED_SCHEMES } from './links';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'span',
    'div',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'video',
    'time',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: [
      'href',
      'title',
      'class',
      'data-stream-id',
      { name: 'target', multiple: false, values: ['_blank'] },
      { name: 'rel', multiple: false, values: ['noopener noreferrer'] },
    ],
    span: [
      'class',
      'title',
      'data-user-id',
      'data-user-group-id',
      'aria-label',
      { name: 'role', multiple: false, values: ['img'] },
    ],
    div: [
      'class',
      'data-code-language',
      { name: 'aria-hidden', multiple: false, values: ['true'] },
    ],
    img: ['alt', 'class', 'src', 'title'],
    video: ['src', { name: 'preload', multiple: false, values: ['metadata'] }],
    ol: ['start'],
    time: ['datetime'],
    th: ['style'],
    td: ['style'],
  },
  allowedClasses: {
    a: ['stream', 'stream-topic', 'message-link'],
    span: [
      'user-mention',
      'channel-wildcard-mention',
      'topic-mention',
      'user-group-mention',
      'silent',
      'emoji',
      'emoji-*',
    ],
    div: [
      'codehilite',
      'spoiler-block',
      'spoiler-header',
      'spoiler-content',
      'message_inline_image',
      'message_inline_video',
    ],
    img: ['emoji'],
  },
  allowedStyles: {
    th: { 'text-align': [/^(left|right|center)$/] },
    td: { 'text-align': [/^(left|right|center)$/] },
  },
  allowedSchemes: ALLOWED_SCHEMES,
  allowedSchemesByTag: { img: ['http', 'https'], video: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
};

/** `html` with everything outside the renderer's allowlist removed. */
export function sanitizeRendered(html: string): string {
  // sanitize-html writes void elements as <br />; Zulip writes <br>. Outside
  // tags, ">" is always escaped, so " />" can only end a tag.
  return sanitizeHtml(html, OPTIONS).replace(/ \/>/g, '>');
}

// Unit tests of the Markdown renderer (no server): input -> exact HTML in
// Zulip's shapes, plus the facts reported in RenderResult. Many cases come
// from Zulip's zerver/tests/fixtures/markdown_test_cases.json.
import {
  mentionCandidates,
  renderMarkdown,
  type RenderContext,
  type RenderResult,
} from '../src/lib/markdown';

const users = [
  { id: 12, fullName: 'King Hamlet' },
  { id: 13, fullName: 'Othello, the Moor of Venice' },
  { id: 14, fullName: '<img src=x onerror=alert(1)>"' },
];
const groups = [
  { id: 5, name: 'support' },
  { id: 6, name: '<script>alert(1)</script>' },
];
const streams = [
  { id: 9, name: 'Denmark' },
  { id: 10, name: 'design > ui' },
  { id: 11, name: '"><script>alert(1)</script>' },
];
const realmEmoji = [
  { id: 1, name: 'green_tick', url: '/user_avatars/2/emoji/images/1.png' },
  { id: 2, name: 'evil', url: 'javascript:alert(1)' },
];

const ctx: RenderContext = {
  userByName: (name) => users.find((u) => u.fullName.toLowerCase() === name.toLowerCase()),
  userById: (id) => users.find((u) => u.id === id),
  groupByName: (name) => groups.find((g) => g.name.toLowerCase() === name.toLowerCase()),
  streamByName: (name) => streams.find((s) => s.name === name),
  realmEmojiByName: (name) => realmEmoji.find((e) => e.name === name),
  baseUrl: 'http://zulip.testserver',
};

/** The RenderResult fields a case asserts; unlisted ones must be empty/false. */
type Facts = {
  mentioned?: number[];
  silent?: number[];
  groups?: number[];
  streamWildcard?: boolean;
  topicWildcard?: boolean;
  hasLink?: boolean;
  hasImage?: boolean;
  uploads?: string[];
};

function factsOf(result: RenderResult): Required<Facts> {
  return {
    mentioned: [...result.mentionedUserIds],
    silent: [...result.silentlyMentionedUserIds],
    groups: [...result.mentionedGroupIds],
    streamWildcard: result.streamWildcard,
    topicWildcard: result.topicWildcard,
    hasLink: result.hasLink,
    hasImage: result.hasImage,
    uploads: result.uploadPathIds,
  };
}

function expectedFacts(facts: Facts = {}): Required<Facts> {
  return {
    mentioned: facts.mentioned ?? [],
    silent: facts.silent ?? [],
    groups: facts.groups ?? [],
    streamWildcard: facts.streamWildcard ?? false,
    topicWildcard: facts.topicWildcard ?? false,
    hasLink: facts.hasLink ?? false,
    hasImage: facts.hasImage ?? false,
    uploads: facts.uploads ?? [],
  };
}

const ALLOWED_TAGS = new Set([
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
]);

function decodeEntities(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Fails unless `html` holds only allowed tags, no handlers or styles, and no dangerous URLs. */
function expectSafe(html: string): void {
  for (const [, tag] of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)) {
    expect(ALLOWED_TAGS).toContain(tag.toLowerCase());
  }
  for (const [, attrs] of html.matchAll(
    /<[a-zA-Z][a-zA-Z0-9-]*((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g,
  )) {
    for (const [, name, value = ''] of attrs.matchAll(/\s+([^\s=>]+)(?:="([^"]*)")?/g)) {
      expect(name.toLowerCase()).not.toMatch(/^on/);
      if (name === 'style') expect(value).toMatch(/^text-align:(left|right|center);?$/);
      if (name === 'href' || name === 'src') {
        // eslint-disable-next-line no-control-regex -- browsers drop control characters and spaces from a URL
        const dropped = /[\x00-\x20]/g;
        const url = decodeEntities(value).replace(dropped, '').toLowerCase();
        expect(url).not.toMatch(/^(javascript|vbscript|data):/);
      }
    }
  }
}

type Case = [name: string, input: string, html: string, facts?: Facts];

const formatting: Case[] = [
  ['empty', '', ''],
  ['paragraph', 'test_input', '<p>test_input</p>'],
  ['bold and italic', '**foo** and *bar*', '<p><strong>foo</strong> and <em>bar</em></p>'],
  ['underscores are literal', '_foo_ __bar__ snake_case', '<p>_foo_ __bar__ snake_case</p>'],
  [
    'pointer syntax is not emphasis',
    'const char *x = (char *)y',
    '<p>const char *x = (char *)y</p>',
  ],
  ['strikethrough', 'I like ~~software~~ hardware', '<p>I like <del>software</del> hardware</p>'],
  [
    'strikethrough with spaces',
    'I ~~ like software ~~ love',
    '<p>I <del> like software </del> love</p>',
  ],
  ['newline is a line break', 'test\nbar', '<p>test<br>\nbar</p>'],
  [
    'code spans keep their spaces',
    '` outer ` ```    space    ```',
    '<p><code> outer </code> <code>    space    </code></p>',
  ],
  ['code span escapes', '`<&nbsp;>`', '<p><code>&lt;&amp;nbsp;&gt;</code></p>'],
  ['entities and escapes', '&amp; &lt;b&gt; \\*not em\\*', '<p>&amp; &lt;b&gt; *not em*</p>'],
  [
    'image syntax is a link, with its preview',
    '![x](https://a.com/b.png)',
    '<p>!<a href="https://a.com/b.png" target="_blank" rel="noopener noreferrer">x</a></p>\n' +
      '<div class="message_inline_image"><a href="https://a.com/b.png" title="x"><img src="https://a.com/b.png"></a></div>',
    { hasLink: true, hasImage: true },
  ],
  ['heading', '# Hello world', '<h1>Hello world</h1>'],
  ['heading needs a space', '#Hello world', '<p>#Hello world</p>'],
  ['rule', 'a\n\n---\n\nb', '<p>a</p>\n<hr>\n<p>b</p>'],
  ['/me is rendered as text', '/me is happy', '<p>/me is happy</p>'],
  [
    'reference links are disabled',
    'Hello [world]\n\n[world]: https://google.com',
    '<p>Hello [world]</p>\n<p>[world]: <a href="https://google.com" target="_blank" rel="noopener noreferrer">https://google.com</a></p>',
    { hasLink: true },
  ],
  [
    'table',
    'a | b\n:-|-:\n1 | 2',
    '<table>\n<thead>\n<tr>\n<th style="text-align:left">a</th>\n<th style="text-align:right">b</th>\n</tr>\n</thead>\n' +
      '<tbody>\n<tr>\n<td style="text-align:left">1</td>\n<td style="text-align:right">2</td>\n</tr>\n</tbody>\n</table>',
  ],
];

const blocks: Case[] = [
  [
    'fenced code with language',
    'Hamlet said:\n~~~~.python \ndef speak(self):\n    x = 1\n~~~~',
    '<p>Hamlet said:</p>\n<div class="codehilite" data-code-language="Python"><pre><span></span><code>def speak(self):\n    x = 1\n</code></pre></div>',
  ],
  [
    'fenced code with unknown language',
    '``` inventedlanguage\ndef speak(self):\n```',
    '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>def speak(self):\n</code></pre></div>',
  ],
  [
    'code loses trailing whitespace',
    '~~~\ny = 2\t\t\n\n    z = 3       \n~~~\nAnd all was good.',
    '<div class="codehilite"><pre><span></span><code>y = 2\n\n    z = 3\n</code></pre></div>\n<p>And all was good.</p>',
  ],
  [
    'indented code and entities',
    '& &amp;\n\n    & &amp;',
    '<p>&amp; &amp;</p>\n<div class="codehilite"><pre><span></span><code>&amp; &amp;amp;\n</code></pre></div>',
  ],
  [
    'unclosed fence runs to the end',
    'Then:\n~~~~\ndef foobar(self):\n    return 1',
    '<p>Then:</p>\n<div class="codehilite"><pre><span></span><code>def foobar(self):\n    return 1\n</code></pre></div>',
  ],
  ['backticks on one line are code', '```inline code```', '<p><code>inline code</code></p>'],
  [
    'separate quotes',
    '> Hello World!\n\n> Hello Universe!',
    '<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n</blockquote>',
  ],
  [
    'quote fence',
    'Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~',
    '<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>',
  ],
  [
    'quote fence holding a quote',
    'Hamlet said:\n~~~ quote\nPolonius said:\n> This above all,\nAnd it must follow.\n\nWhat good advice!\n~~~',
    '<p>Hamlet said:</p>\n<blockquote>\n<p>Polonius said:</p>\n<blockquote>\n<p>This above all,<br>\nAnd it must follow.</p>\n' +
      '</blockquote>\n<p>What good advice!</p>\n</blockquote>',
  ],
  [
    'quote fence holding code',
    '````quote\n```\ncode\n```\n````',
    '<blockquote>\n<div class="codehilite"><pre><span></span><code>code\n</code></pre></div>\n</blockquote>',
  ],
  [
    'a bare fence closes the innermost quote',
    '~~~ quote\nouter\n~~~ quote\ninner\n~~~\nback out\n~~~',
    '<blockquote>\n<p>outer</p>\n<blockquote>\n<p>inner</p>\n</blockquote>\n<p>back out</p>\n</blockquote>',
  ],
  ['empty quote fence renders nothing', '```quote\n```', ''],
  [
    'spoiler',
    '```spoiler header\ncontent\n```\noutside spoiler\n',
    '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n' +
      '<p>content</p>\n</div></div>\n<p>outside spoiler</p>',
  ],
  [
    'spoiler without header',
    '```spoiler\ncontent\n```',
    '<div class="spoiler-block"><div class="spoiler-header">\n</div><div class="spoiler-content" aria-hidden="true">\n' +
      '<p>content</p>\n</div></div>',
  ],
  [
    'bullet list after a paragraph',
    'Some text with a hanging list:\n* One item\n* Two items',
    '<p>Some text with a hanging list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n</ul>',
  ],
  ['ordered list keeps its start', '3. A\n3. B', '<ol start="3">\n<li>A</li>\n<li>B</li>\n</ol>'],
  [
    'loose list',
    '* Alpha\n\n* Beta',
    '<ul>\n<li>\n<p>Alpha</p>\n</li>\n<li>\n<p>Beta</p>\n</li>\n</ul>',
  ],
  [
    'nested list',
    '* outer\n  * inner',
    '<ul>\n<li>outer\n<ul>\n<li>inner</li>\n</ul>\n</li>\n</ul>',
  ],
];

const links: Case[] = [
  [
    'link with text',
    '[hello](https://github.com)',
    '<p><a href="https://github.com" target="_blank" rel="noopener noreferrer">hello</a></p>',
    { hasLink: true },
  ],
  [
    'link without text shows its URL',
    '[](https://github.com)',
    '<p><a href="https://github.com" target="_blank" rel="noopener noreferrer">https://github.com</a></p>',
    { hasLink: true },
  ],
  [
    'link with a title',
    '[x](http://a.com "A title")',
    '<p><a href="http://a.com" title="A title" target="_blank" rel="noopener noreferrer">x</a></p>',
    { hasLink: true },
  ],
  [
    'bare URL without trailing punctuation',
    'at https://zulip.com/api. Check it!',
    '<p>at <a href="https://zulip.com/api" target="_blank" rel="noopener noreferrer">https://zulip.com/api</a>. Check it!</p>',
    { hasLink: true },
  ],
  [
    'bare domain',
    'go to views.org please',
    '<p>go to <a href="http://views.org" target="_blank" rel="noopener noreferrer">views.org</a> please</p>',
    { hasLink: true },
  ],
  ['file names are not domains', 'python class views.py is', '<p>python class views.py is</p>'],
  [
    'e-mail address',
    'a@b.com',
    '<p><a href="mailto:a@b.com" target="_blank" rel="noopener noreferrer">a@b.com</a></p>',
    { hasLink: true },
  ],
  [
    'scheme-less link target',
    '[x](example.com)',
    '<p><a href="http://example.com" target="_blank" rel="noopener noreferrer">x</a></p>',
    { hasLink: true },
  ],
  [
    'telephone link',
    '[call me](tel:+14155551234)',
    '<p><a href="tel:+14155551234" target="_blank" rel="noopener noreferrer">call me</a></p>',
    { hasLink: true },
  ],
  [
    'angle brackets stay',
    '<http://foo.com>',
    '<p>&lt;<a href="http://foo.com" target="_blank" rel="noopener noreferrer">http://foo.com</a>&gt;</p>',
    { hasLink: true },
  ],
  [
    'upload link stays relative, without a preview',
    '[a.pdf](/user_uploads/2/ab/a.pdf)',
    '<p><a href="/user_uploads/2/ab/a.pdf">a.pdf</a></p>',
    { hasLink: true, uploads: ['2/ab/a.pdf'] },
  ],
  [
    'uploaded image',
    'http://zulip.testserver/user_uploads/2/cd/pic.PNG and [again](/user_uploads/2/cd/pic.PNG)',
    // An absolute link into the realm becomes relative, as in Zulip (without the leading /).
    '<p><a href="user_uploads/2/cd/pic.PNG">http://zulip.testserver/user_uploads/2/cd/pic.PNG</a> and ' +
      '<a href="/user_uploads/2/cd/pic.PNG">again</a></p>\n' +
      '<div class="message_inline_image"><a href="user_uploads/2/cd/pic.PNG" title="http://zulip.testserver/user_uploads/2/cd/pic.PNG"><img src="user_uploads/2/cd/pic.PNG"></a></div>' +
      '<div class="message_inline_image"><a href="/user_uploads/2/cd/pic.PNG" title="again"><img src="/user_uploads/2/cd/pic.PNG"></a></div>',
    { hasLink: true, hasImage: true, uploads: ['2/cd/pic.PNG'] },
  ],
  [
    'external image: a preview stands in for the bare URL, not an upload',
    'https://example.com/pic.png',
    '<div class="message_inline_image"><a href="https://example.com/pic.png"><img src="https://example.com/pic.png"></a></div>',
    { hasLink: true, hasImage: true },
  ],
  [
    'links into the realm become relative',
    '[foo](http://zulip.testserver/#narrow/stream/1-Denmark)',
    '<p><a href="#narrow/stream/1-Denmark">foo</a></p>',
    { hasLink: true },
  ],
];

const mentions: Case[] = [
  [
    'user mention',
    'Hi @**King Hamlet**',
    '<p>Hi <span class="user-mention" data-user-id="12">@King Hamlet</span></p>',
    { mentioned: [12] },
  ],
  [
    'user mention ignores case',
    '@**king hamlet**',
    '<p><span class="user-mention" data-user-id="12">@King Hamlet</span></p>',
    { mentioned: [12] },
  ],
  [
    'user mention with id',
    '@**King Hamlet|12** @**|13**',
    '<p><span class="user-mention" data-user-id="12">@King Hamlet</span> <span class="user-mention" data-user-id="13">@Othello, the Moor of Venice</span></p>',
    { mentioned: [12, 13] },
  ],
  ['name and id must agree', '@**Othello|12**', '<p>@<strong>Othello|12</strong></p>'],
  [
    'silent mention',
    '@_**King Hamlet**',
    '<p><span class="user-mention silent" data-user-id="12">King Hamlet</span></p>',
    { silent: [12] },
  ],
  ['unknown user stays text', '@**Nobody**', '<p>@<strong>Nobody</strong></p>'],
  ['no mention inside a word', 'a@**King Hamlet**', '<p>a@<strong>King Hamlet</strong></p>'],
  [
    'mention after a bracket',
    '(@**King Hamlet**)',
    '<p>(<span class="user-mention" data-user-id="12">@King Hamlet</span>)</p>',
    { mentioned: [12] },
  ],
  [
    'channel wildcards',
    '@**all** @**everyone** @**channel** @**stream**',
    '<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> ' +
      '<span class="user-mention channel-wildcard-mention" data-user-id="*">@everyone</span> ' +
      '<span class="user-mention channel-wildcard-mention" data-user-id="*">@channel</span> ' +
      '<span class="user-mention channel-wildcard-mention" data-user-id="*">@stream</span></p>',
    { streamWildcard: true },
  ],
  [
    'topic wildcard',
    '@**topic**',
    '<p><span class="topic-mention">@topic</span></p>',
    { topicWildcard: true },
  ],
  [
    'silent wildcards notify nobody',
    '@_**all** @_**topic**',
    '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> <span class="topic-mention silent">topic</span></p>',
  ],
  [
    'group mention',
    '@*support*',
    '<p><span class="user-group-mention" data-user-group-id="5">@support</span></p>',
    { groups: [5] },
  ],
  [
    'silent group mention',
    '@_*support*',
    '<p><span class="user-group-mention silent" data-user-group-id="5">support</span></p>',
  ],
  ['unknown group stays text', '@*nobody*', '<p>@<em>nobody</em></p>'],
  [
    'mentions in a quote are silent',
    '> @**King Hamlet** @*support* @**all**',
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="12">King Hamlet</span> ' +
      '<span class="user-group-mention silent" data-user-group-id="5">support</span> ' +
      '<span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>\n</blockquote>',
    { silent: [12] },
  ],
  [
    'mentions in a quote fence are silent',
    '```quote\n@**King Hamlet**\n```',
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="12">King Hamlet</span></p>\n</blockquote>',
    { silent: [12] },
  ],
  [
    'no mentions or emoji in code',
    '`@**King Hamlet** :smile:`\n```\n@*support* #**Denmark**\n```',
    '<p><code>@**King Hamlet** :smile:</code></p>\n<div class="codehilite"><pre><span></span><code>@*support* #**Denmark**\n</code></pre></div>',
  ],
  [
    'channel link',
    '#**Denmark**',
    '<p><a class="stream" data-stream-id="9" href="/#narrow/channel/9-Denmark">#Denmark</a></p>',
    { hasLink: true },
  ],
  [
    'topic link',
    '#**Denmark>some topic.txt**',
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Denmark/topic/some.20topic.2Etxt">#Denmark &gt; some topic.txt</a></p>',
    { hasLink: true },
  ],
  [
    'message link',
    '#**Denmark>lunch@123**',
    '<p><a class="message-link" href="/#narrow/channel/9-Denmark/topic/lunch/near/123">#Denmark &gt; lunch @ 💬</a></p>',
    { hasLink: true },
  ],
  [
    'link to the empty topic',
    '#**Denmark>**',
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Denmark/topic/">#Denmark &gt; <em>general chat</em></a></p>',
    { hasLink: true },
  ],
  [
    'channel named with ">"',
    '#**design > ui**',
    '<p><a class="stream" data-stream-id="10" href="/#narrow/channel/10-design-.3E-ui">#design &gt; ui</a></p>',
    { hasLink: true },
  ],
  ['unknown channel stays text', '#**Nowhere**', '<p>#<strong>Nowhere</strong></p>'],
];

const emoji: Case[] = [
  [
    'unicode emoji by name',
    ':airplane: :+1:',
    '<p><span aria-label="airplane" class="emoji emoji-2708" role="img" title="airplane">:airplane:</span> ' +
      '<span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span></p>',
  ],
  [
    'aliases keep their name and show the emoji of their canonical name',
    ':thumbs_up: :like: :smile:',
    '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> ' +
      '<span aria-label="like" class="emoji emoji-1f44d" role="img" title="like">:like:</span> ' +
      '<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>',
  ],
  [
    'names outside ASCII',
    ':piñata: :flag_réunion: :flag_reunion:',
    '<p><span aria-label="piñata" class="emoji emoji-1fa85" role="img" title="piñata">:piñata:</span> ' +
      '<span aria-label="flag réunion" class="emoji emoji-1f1f7-1f1ea" role="img" title="flag réunion">:flag_réunion:</span> ' +
      '<span aria-label="flag reunion" class="emoji emoji-1f1f7-1f1ea" role="img" title="flag reunion">:flag_reunion:</span></p>',
  ],
  [
    'typed sequences, with or without variation selectors',
    '\u{1f937}\u200d\u2640\ufe0f #\ufe0f\u20e3 \u{1f441}\u200d\u{1f5e8}',
    '<p><span aria-label="woman shrugging" class="emoji emoji-1f937-200d-2640" role="img" title="woman shrugging">:woman_shrugging:</span> ' +
      '<span aria-label="hash" class="emoji emoji-0023-20e3" role="img" title="hash">:hash:</span> ' +
      '<span aria-label="eye in speech bubble" class="emoji emoji-1f441-fe0f-200d-1f5e8-fe0f" role="img" title="eye in speech bubble">:eye_in_speech_bubble:</span></p>',
  ],
  [
    'custom emoji',
    ':green_tick:',
    '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"></p>',
  ],
  [
    'zulip emoji',
    ':zulip:',
    '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>',
  ],
  [
    'unknown names stay text',
    ':not_an_emoji: :) x::y::z :wasted waste:',
    '<p>:not_an_emoji: :) x::y::z :wasted waste:</p>',
  ],
  [
    'emoji without spaces',
    ':cat:hello:dog::octopus:',
    '<p><span aria-label="cat" class="emoji emoji-1f408" role="img" title="cat">:cat:</span>hello' +
      '<span aria-label="dog" class="emoji emoji-1f415" role="img" title="dog">:dog:</span>' +
      '<span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span></p>',
  ],
  [
    'typed emoji',
    'I am a robot \u{1f916}. \u2764\ufe0f',
    '<p>I am a robot <span aria-label="robot" class="emoji emoji-1f916" role="img" title="robot">:robot:</span>. ' +
      '<span aria-label="heart" class="emoji emoji-2764" role="img" title="heart">:heart:</span></p>',
  ],
  ['skin tones are not emoji', ':skin-tone-2:', '<p>:skin-tone-2:</p>'],
  [
    'global times',
    '<time:2017-06-05T22:30:00Z> <time:1496701800> <time:2017-12-31 05:30+05:30>',
    '<p><time datetime="2017-06-05T22:30:00Z">2017-06-05T22:30:00Z</time> <time datetime="2017-06-05T22:30:00Z">1496701800</time> ' +
      '<time datetime="2017-12-31T00:00:00Z">2017-12-31 05:30+05:30</time></p>',
  ],
  [
    'unreadable time stays text',
    '<time:**hello world**>',
    '<p>&lt;time:<strong>hello world</strong>&gt;</p>',
  ],
];

// Hostile input: each must render exactly as shown, and the output is also
// checked by expectSafe (like every other case).
const hostile: Case[] = [
  ['script tag', '<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
  [
    'nested script tags',
    '<<script>script>evil()<</script>/script>',
    '<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>',
  ],
  ['img onerror', '<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>'],
  ['svg onload', '<svg onload=alert(1)>', '<p>&lt;svg onload=alert(1)&gt;</p>'],
  [
    'iframe',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<p>&lt;iframe src="javascript:alert(1)"&gt;&lt;/iframe&gt;</p>',
  ],
  [
    'style attribute',
    '<p style="background:url(javascript:alert(1))">x</p>',
    '<p>&lt;p style="background:url(javascript:alert(1))"&gt;x&lt;/p&gt;</p>',
  ],
  ['javascript: link', '[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
  ['mixed-case javascript: link', '[x](JaVaScRiPt:alert(1))', '<p>[x](JaVaScRiPt:alert(1))</p>'],
  [
    'entity-encoded javascript: link',
    '[x](&#106;avascript&#x3A;alert(1)) [y](javascript&colon;alert(1))',
    '<p>[x](javascript:alert(1)) [y](javascript:alert(1))</p>',
  ],
  [
    'javascript: link with whitespace',
    '[x]( \tjavascript:alert(1))',
    '<p>[x]( \tjavascript:alert(1))</p>',
  ],
  [
    'data: link',
    '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '<p>[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)</p>',
  ],
  ['vbscript: link', '[x](vbscript:msgbox(1))', '<p>[x](vbscript:msgbox(1))</p>'],
  ['image with javascript:', '![x](javascript:alert(1))', '<p>![x](javascript:alert(1))</p>'],
  [
    'angle-bracket javascript: autolink',
    '<javascript:alert(1)>',
    '<p>&lt;javascript:alert(1)&gt;</p>',
  ],
  [
    'link title with quotes',
    '[x](http://a.com "a\\" onmouseover=\\"alert(1)")',
    '<p><a href="http://a.com" title="a&quot; onmouseover=&quot;alert(1)" target="_blank" rel="noopener noreferrer">x</a></p>',
    { hasLink: true },
  ],
  [
    'quote in a link target',
    '[x](http://a.com/"onmouseover="alert(1))',
    '<p><a href="http://a.com/%22onmouseover=%22alert(1)" target="_blank" rel="noopener noreferrer">x</a></p>',
    { hasLink: true },
  ],
  [
    'code block closing its tags',
    '```\n</code></pre><script>alert(1)</script>\n```',
    '<div class="codehilite"><pre><span></span><code>&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre></div>',
  ],
  [
    'code span closing its tags',
    '`</code><script>alert(1)</script>`',
    '<p><code>&lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code></p>',
  ],
  [
    'fence language with markup',
    '```"><script>alert(1)</script>\nx\n```',
    '<p>```"&gt;&lt;script&gt;alert(1)&lt;/script&gt;<br>\nx</p>',
  ],
  [
    'names holding HTML',
    '@**<img src=x onerror=alert(1)>"** @*<script>alert(1)</script>* #**"><script>alert(1)</script>**',
    '<p><span class="user-mention" data-user-id="14">@&lt;img src=x onerror=alert(1)&gt;"</span> ' +
      '<span class="user-group-mention" data-user-group-id="6">@&lt;script&gt;alert(1)&lt;/script&gt;</span> ' +
      '<a class="stream" data-stream-id="11" href="/#narrow/channel/11-.22.3E.3Cscript.3Ealert.281.29.3C.2Fscript.3E">' +
      '#"&gt;&lt;script&gt;alert(1)&lt;/script&gt;</a></p>',
    { mentioned: [14], groups: [6], hasLink: true },
  ],
  [
    'custom emoji with a javascript: URL',
    ':evil:',
    '<p><img alt=":evil:" class="emoji" title="evil"></p>',
  ],
  [
    'entity-encoded tags stay text',
    '&lt;script&gt;alert(1)&lt;/script&gt;',
    '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
  ],
  [
    'unterminated constructs',
    '**bold *em [link](http://a.com @**King ~~del `code\n```quote\n> x',
    '<p>**bold *em [link](<a href="http://a.com" target="_blank" rel="noopener noreferrer">http://a.com</a> @**King ~~del `code</p>\n' +
      '<blockquote>\n<blockquote>\n<p>x</p>\n</blockquote>\n</blockquote>',
    { hasLink: true },
  ],
  ['NUL characters', 'a\u0000b', '<p>a\ufffdb</p>'],
];

describe('renderMarkdown', () => {
  const groupsOfCases: [string, Case[]][] = [
    ['formatting', formatting],
    ['blocks', blocks],
    ['links', links],
    ['mentions and channel links', mentions],
    ['emoji and times', emoji],
    ['hostile input', hostile],
  ];
  for (const [groupName, cases] of groupsOfCases) {
    describe(groupName, () => {
      // Every row gets its facts, so Jest never takes the last argument for a `done` callback.
      const rows = cases.map(([name, input, html, facts]): Required<Case> => [
        name,
        input,
        html,
        facts ?? {},
      ]);
      test.each(rows)('%s', (_name, input, html, facts) => {
        const result = renderMarkdown(input, ctx);
        expect(result.html).toBe(html);
        expect(factsOf(result)).toEqual(expectedFacts(facts));
        expect(result.hasAttachment).toBe(result.uploadPathIds.length > 0);
        expectSafe(result.html);
      });
    });
  }

  describe('long and deeply nested input', () => {
    const long: [string, string][] = [
      ['asterisks', '*'.repeat(10000)],
      ['brackets', '['.repeat(10000)],
      ['half links', '[a]('.repeat(2500)],
      ['open mentions', '@**'.repeat(3333)],
      ['one long open mention', `@**${'a'.repeat(9990)}`],
      ['open channel links', '#**'.repeat(3333)],
      ['colons', ':a'.repeat(5000)],
      ['backticks', '`a``'.repeat(2500)],
      ['tildes', '~~a'.repeat(3333)],
      ['quotes', `${'>'.repeat(10000)} x`],
      ['lists', `${'- '.repeat(5000)}x`],
      ['quote fences', '```quote\n'.repeat(1111)],
      ['times', '<time:'.repeat(1666)],
      ['emphasis', '*a **b '.repeat(1250)],
      ['script tags', '<script>alert(1)</script>'.repeat(400)],
      ['links', 'javascript:alert(1) http://a.com/ [x](javascript:y) '.repeat(180)],
    ];
    test.each(long)('%s', (_name, input) => {
      const result = renderMarkdown(input, ctx);
      expectSafe(result.html);
      expect(result.html).not.toMatch(/<script|javascript:[^<]*"/i);
    });
  });

  test('a rendering does not leak into the next one', () => {
    renderMarkdown('@**King Hamlet** [f](/user_uploads/1/a/f.png) @**all**', ctx);
    expect(factsOf(renderMarkdown('plain', ctx))).toEqual(expectedFacts());
  });
});

describe('mentionCandidates', () => {
  test('lists every name and id the syntax refers to, once', () => {
    const content =
      '@**King Hamlet** @_**King Hamlet** @**Othello|13** @**|14** @**all** @**topic** ' +
      '@*support* @_*admins* #**Denmark** #**design > ui>topic** :smile: :green_tick: :smile: ' +
      '`@**In Code**`';
    expect(mentionCandidates(content)).toEqual({
      userNames: ['King Hamlet', 'In Code'],
      userIds: [13, 14],
      groupNames: ['support', 'admins'],
      streamNames: ['Denmark', 'design ', 'design > ui>topic'],
      emojiNames: ['smile', 'green_tick'],
    });
  });

  test('finds nothing in plain text', () => {
    expect(mentionCandidates('hello @ # : ** world')).toEqual({
      userNames: [],
      userIds: [],
      groupNames: [],
      streamNames: [],
      emojiNames: [],
    });
  });
});

describe('TeX math', () => {
  // Zulip's renderings of the same input (KaTeX output included).
  const OPLUS =
    '<p><span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mn>1</mn><mo>⊕</mo><mn>0</mn><mo>=</mo><mn>1</mn></mrow><annotation encoding="application/x-tex">1 \\oplus 0 = 1</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" style="height:0.7278em;vertical-align:-0.0833em;"></span><span class="mord">1</span><span class="mspace" style="margin-right:0.2222em;"></span><span class="mbin">⊕</span><span class="mspace" style="margin-right:0.2222em;"></span></span><span class="base"><span class="strut" style="height:0.6444em;"></span><span class="mord">0</span><span class="mspace" style="margin-right:0.2778em;"></span><span class="mrel">=</span><span class="mspace" style="margin-right:0.2778em;"></span></span><span class="base"><span class="strut" style="height:0.6444em;"></span><span class="mord">1</span></span></span></span></p>';
  const PYTHAGORAS =
    '<p><span class="katex-display"><span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics><mrow><msup><mi>a</mi><mn>2</mn></msup><mo>=</mo><msup><mi>b</mi><mn>2</mn></msup><mo>+</mo><msup><mi>c</mi><mn>2</mn></msup></mrow><annotation encoding="application/x-tex">a^2 = b^2 + c^2</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" style="height:0.8641em;"></span><span class="mord"><span class="mord mathnormal">a</span><span class="msupsub"><span class="vlist-t"><span class="vlist-r"><span class="vlist" style="height:0.8641em;"><span style="top:-3.113em;margin-right:0.05em;"><span class="pstrut" style="height:2.7em;"></span><span class="sizing reset-size6 size3 mtight"><span class="mord mtight">2</span></span></span></span></span></span></span></span><span class="mspace" style="margin-right:0.2778em;"></span><span class="mrel">=</span><span class="mspace" style="margin-right:0.2778em;"></span></span><span class="base"><span class="strut" style="height:0.9474em;vertical-align:-0.0833em;"></span><span class="mord"><span class="mord mathnormal">b</span><span class="msupsub"><span class="vlist-t"><span class="vlist-r"><span class="vlist" style="height:0.8641em;"><span style="top:-3.113em;margin-right:0.05em;"><span class="pstrut" style="height:2.7em;"></span><span class="sizing reset-size6 size3 mtight"><span class="mord mtight">2</span></span></span></span></span></span></span></span><span class="mspace" style="margin-right:0.2222em;"></span><span class="mbin">+</span><span class="mspace" style="margin-right:0.2222em;"></span></span><span class="base"><span class="strut" style="height:0.8641em;"></span><span class="mord"><span class="mord mathnormal">c</span><span class="msupsub"><span class="vlist-t"><span class="vlist-r"><span class="vlist" style="height:0.8641em;"><span style="top:-3.113em;margin-right:0.05em;"><span class="pstrut" style="height:2.7em;"></span><span class="sizing reset-size6 size3 mtight"><span class="mord mtight">2</span></span></span></span></span></span></span></span></span></span></span></span></p>';

  const html = (input: string) => renderMarkdown(input, ctx).html;

  test('$$...$$ is inline math', () => {
    expect(html('$$1 \\oplus 0 = 1$$')).toBe(OPLUS);
    const inText = html('so $$x^2$$ holds');
    expect(inText).toMatch(
      /^<p>so <span class="katex"><span class="katex-mathml">.*<\/span> holds<\/p>$/,
    );
    expect(inText).toContain('<annotation encoding="application/x-tex">x^2</annotation>');
  });

  test('```math and ~~~math fences are display math', () => {
    expect(html('```math\na^2 = b^2 + c^2\n```')).toBe(PYTHAGORAS);
    expect(html('~~~math\na^2 = b^2 + c^2\n~~~')).toBe(PYTHAGORAS);
    // One expression per paragraph, in one paragraph; fences inside are TeX.
    const two = html('```math\nx\n\ny\n```');
    expect(two).toMatch(
      /^<p><span class="katex-display">.*<\/span>\n\n<span class="katex-display">.*<\/span><\/p>$/s,
    );
    expect(html('```math\n````js\nvar x;\n````\n```')).toContain(
      '<annotation encoding="application/x-tex">````js\nvar x;\n````</annotation>',
    );
    // Inside a quote and a list.
    expect(html('```quote\n```math\nx\n```\n```')).toMatch(
      /^<blockquote>\n<p><span class="katex-display">.*<\/span><\/p>\n<\/blockquote>$/,
    );
    expect(html('- $$x$$')).toMatch(/^<ul>\n<li><span class="katex">.*<\/span><\/li>\n<\/ul>$/);
  });

  test.each([
    ['a single $ is text', '$x$ and $5 to $20', '<p>$x$ and $5 to $20</p>'],
    ['dollar runs', 'We make $$$ or $$$$!', '<p>We make $$$ or $$$$!</p>'],
    ['no newline inside', '$$x=3\ny=4$$', '<p>$$x=3<br>\ny=4$$</p>'],
    ['no leading underscore', '$$_$$ smiley', '<p>$$_$$ smiley</p>'],
    ['unmatched', '$foo is$$', '<p>$foo is$$</p>'],
    ['after a letter', 'x$$a$$', '<p>x$$a$$</p>'],
    ['before a letter', '$$a$$x', '<p>$$a$$x</p>'],
    ['in a code span', '`$$a$$`', '<p><code>$$a$$</code></p>'],
    [
      'tex fences are code',
      '```tex\n\\pi\n```',
      '<div class="codehilite" data-code-language="TeX"><pre><span></span><code>\\pi\n</code></pre></div>',
    ],
  ])('%s', (_name, input, expected) => {
    expect(html(input)).toBe(expected);
  });

  test('an escaped dollar may end the TeX', () => {
    const out = html('($$x \\approx 500\\$$$)');
    expect(out).toMatch(/^<p>\(<span class="katex">.*<\/span>\)<\/p>$/);
    expect(out).toContain(
      '<annotation encoding="application/x-tex">x \\approx 500\\$</annotation>',
    );
  });

  test('invalid TeX is shown as written, with the tex-error class', () => {
    expect(html('$$\\error{**a**}$$')).toBe(
      '<p><span class="tex-error">$$\\error{**a**}$$</span></p>',
    );
    expect(html('~~~math\n\\error{**a**}\n~~~')).toBe(
      '<p><span class="tex-error">\\error{**a**}</span></p>',
    );
    expect(
      html(
        "$$\\<script type='text/javascript'>alert('xss');</script>$$\n\n~~~math\n\\<script type='text/javascript'>alert('xss');</script>\n~~~",
      ),
    ).toBe(
      "<p><span class=\"tex-error\">$$\\&lt;script type='text/javascript'&gt;alert('xss');&lt;/script&gt;$$</span></p>\n" +
        '<p><span class="tex-error">\\&lt;script type=&#x27;text/javascript&#x27;&gt;alert(&#x27;xss&#x27;);&lt;/script&gt;</span></p>',
    );
    // Too deep for KaTeX: an error, not a crash.
    expect(html(`$$${'{'.repeat(5000)}$$`)).toMatch(
      /^<p><span class="tex-error">\$\$\{+\$\$<\/span><\/p>$/,
    );
  });

  test('TeX cannot smuggle HTML, links or forged markers', () => {
    const tags = html(
      '$$<script>alert(1)</script>$$ $$\\href{javascript:alert(1)}{x}$$ $$\\htmlClass{x}{y}$$',
    );
    expect(tags).not.toMatch(/<script|href=|javascript:[^<]*"/i);
    expect(tags.match(/<span class="katex">/g)).toHaveLength(3);
    const forged = 'zulip-trusted-00-0-end $$x$$';
    expect(html(forged)).toMatch(/^<p>zulip-trusted-00-0-end <span class="katex">/);
  });
});

describe('inline image previews', () => {
  const html = (input: string, extra: Partial<RenderContext> = {}) =>
    renderMarkdown(input, { ...ctx, ...extra }).html;
  const preview = (href: string, title?: string, src = href) =>
    `<div class="message_inline_image"><a href="${href}"${title ? ` title="${title}"` : ''}><img src="${src}"></a></div>`;
  const LOGO = 'https://www.google.com/images/srpr/logo4w.png';
  const ZULIP_LOGO = 'https://zulip.com/static/images/logo/zulip-icon-128x128.png';
  const link = (url: string, text = url) =>
    `<a href="${url}" target="_blank" rel="noopener noreferrer">${text}</a>`;

  test('after the paragraph, each URL once, in order', () => {
    expect(html(`Google logo today: ${LOGO}\nKinda boring`)).toBe(
      `<p>Google logo today: ${link(LOGO)}<br>\nKinda boring</p>\n${preview(LOGO)}`,
    );
    expect(html(`A: ${LOGO}\nB: ${ZULIP_LOGO} again ${LOGO}`)).toBe(
      `<p>A: ${link(LOGO)}<br>\nB: ${link(ZULIP_LOGO)} again ${link(LOGO)}</p>\n` +
        preview(LOGO) +
        preview(ZULIP_LOGO),
    );
    expect(html(`${LOGO} one\n\n${ZULIP_LOGO} two`)).toBe(
      `<p>${link(LOGO)} one</p>\n${preview(LOGO)}<p>${link(ZULIP_LOGO)} two</p>\n${preview(ZULIP_LOGO)}`,
    );
  });

  test('a bare URL gives way to its preview; a named link keeps its text as the title', () => {
    expect(html(LOGO)).toBe(preview(LOGO));
    expect(html(`[Google link](${LOGO})`)).toBe(
      `<p>${link(LOGO, 'Google link')}</p>\n${preview(LOGO, 'Google link')}`,
    );
  });

  test('in a list item, at its end; elsewhere, at the end of the message', () => {
    expect(html(`* Google?\n* Google. ${LOGO}\n* Google!`)).toBe(
      `<ul>\n<li>Google?</li>\n<li>Google. ${link(LOGO)}${preview(LOGO)}</li>\n<li>Google!</li>\n</ul>`,
    );
    expect(html(`* ${LOGO}\n* x`)).toBe(`<ul>\n<li>${preview(LOGO)}</li>\n<li>x</li>\n</ul>`);
    expect(html(`# Logo ${LOGO}\n\nafter`)).toBe(
      `<h1>Logo ${link(LOGO)}</h1>\n<p>after</p>\n${preview(LOGO)}`,
    );
  });

  test('inside a spoiler, but never inside a quote', () => {
    expect(html('```spoiler header\nContent http://example.com/image.png\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n' +
        `<p>Content ${link('http://example.com/image.png')}</p>\n${preview('http://example.com/image.png')}</div></div>`,
    );
    const quoted = renderMarkdown(`> ${LOGO}`, ctx);
    expect(quoted.html).toBe(`<blockquote>\n<p>${link(LOGO)}</p>\n</blockquote>`);
    expect(quoted.hasImage).toBe(false);
  });

  test('uploaded images link relatively and show the original file', () => {
    const path = '/user_uploads/2/ab/0123456789abcdef01234567/file.png';
    expect(html(`[file.png](${path})`, { isUploadedImage: () => true })).toBe(
      `<p><a href="${path}">file.png</a></p>\n${preview(path, 'file.png')}`,
    );
    // Not an image the realm holds (missing, or not an image): no preview.
    expect(html(`[file.png](${path})`, { isUploadedImage: () => false })).toBe(
      `<p><a href="${path}">file.png</a></p>`,
    );
  });

  test('MP4 and WebM links get a video player in the same place', () => {
    const clip = '/user_uploads/2/ab/0123456789abcdef01234567/clip.mp4';
    const result = renderMarkdown(`[clip.mp4](${clip})\n\nhttps://e.com/v.WEBM`, ctx);
    expect(result.html).toBe(
      `<p><a href="${clip}">clip.mp4</a></p>\n` +
        `<div class="message_inline_image message_inline_video"><a href="${clip}" title="clip.mp4"><video preload="metadata" src="${clip}"></video></a></div>` +
        '<div class="message_inline_image message_inline_video"><a href="https://e.com/v.WEBM"><video preload="metadata" src="https://e.com/v.WEBM"></video></a></div>',
    );
    expect(result.hasImage).toBe(false);
    expect(html('[x](javascript:alert(1).mp4)')).not.toContain('video');
  });

  test('GitHub file pages show the raw file', () => {
    const page =
      'https://github.com/zulip/zulip/blob/main/static/images/logo/zulip-icon-128x128.png';
    expect(html(page)).toBe(
      preview(
        page,
        undefined,
        'https://raw.githubusercontent.com/zulip/zulip/main/static/images/logo/zulip-icon-128x128.png',
      ),
    );
  });

  test('none when the realm turns them off, or with more than 24 image URLs', () => {
    const off = renderMarkdown(LOGO, { ...ctx, inlineImagePreview: false });
    expect(off.html).toBe(`<p>${link(LOGO)}</p>`);
    expect(off.hasImage).toBe(false);
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => `https://example.com/${i}.png`).join(' ');
    expect(html(many(24)).match(/message_inline_image/g)).toHaveLength(24);
    expect(html(many(25))).not.toContain('message_inline_image');
  });

  test('hostile URLs and titles are escaped or dropped', () => {
    const out = html('[<b>"x"</b>](https://e.com/a.png?q="><script>.png) javascript:alert(1).png');
    expect(out).not.toMatch(/<script|<b>|="javascript:/);
    expect(out).toContain('title="&lt;b&gt;&quot;x&quot;&lt;/b&gt;"');
  });
});

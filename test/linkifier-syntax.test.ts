// Unit tests (no server) of what linkifiers are made of: RFC 6570 URL
// templates, RE2 patterns translated to JavaScript with RE2's refusals, and
// linkifiers applied by the Markdown renderer and to topics.
import { renderMarkdown, type RenderContext } from '../src/lib/markdown';
import { PatternError, translatePattern } from '../src/lib/markdown/linkifier-patterns';
import { compileLinkifier, topicLinks } from '../src/lib/markdown/linkifiers';
import {
  expandUrlTemplate,
  parseUrlTemplate,
  templateVariables,
} from '../src/lib/markdown/url-template';

describe('URL templates', () => {
  test.each([
    'http://example.com/',
    'https://user:password@example.com/',
    'https://example.com/foo[bar]',
    'https://example.com/{foo}{bars}',
    'https://example.com/%%(foo)s',
    'https://example.com{/foo,bar,baz}',
    'https://example.com/{?foo*}',
    'https://example.com/{+foo,bar}',
    'https://chat{.domain}.com/{#foo}',
    'https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}',
    '$not_a_url$',
  ])('%s is valid', (template) => {
    expect(parseUrlTemplate(template)).toBeDefined();
  });

  test.each([
    'https://example.com/{foo',
    'https://example.com/{{}',
    'https://example.com/{//foo}',
    'https://example.com/{bar++}',
    'https://example.com/{}',
    'https://example.com/{=foo}',
    'https://example.com/{foo:0}',
    'https://example.com/foo}',
  ])('%s is invalid', (template) => {
    expect(parseUrlTemplate(template)).toBeUndefined();
  });

  test('expansion follows RFC 6570 for string values', () => {
    const values = { var: 'value', hello: 'Hello World!', path: '/foo/bar', empty: '', x: '1024' };
    const expand = (t: string) => expandUrlTemplate(parseUrlTemplate(t)!, values);
    expect(expand('{var}')).toBe('value');
    expect(expand('{hello}')).toBe('Hello%20World%21');
    expect(expand('{+path}/here')).toBe('/foo/bar/here');
    expect(expand('{path}')).toBe('%2Ffoo%2Fbar');
    expect(expand('X{#var}')).toBe('X#value');
    expect(expand('X{.var}')).toBe('X.value');
    expect(expand('{/var,x}/here')).toBe('/value/1024/here');
    expect(expand('{;x,empty}')).toBe(';x=1024;empty');
    expect(expand('{?x,empty,undef}')).toBe('?x=1024&empty=');
    expect(expand('?fixed=yes{&x}')).toBe('?fixed=yes&x=1024');
    expect(expand('{var:3}')).toBe('val');
    expect(expand('{undef}')).toBe('');
    expect(expand('https://example.com/A%20Test/%%%ba/{x}')).toBe(
      'https://example.com/A%20Test/%25%25%ba/1024',
    );
    expect(expand('{hello}é')).toBe('Hello%20World%21%C3%A9');
    expect([...templateVariables(parseUrlTemplate('{a}{+b,c:2}{?a}')!)]).toEqual(['a', 'b', 'c']);
  });
});

describe('RE2 patterns', () => {
  test.each([
    ['(foo', 'missing ): (foo'],
    ['foo)', 'unexpected ): foo)'],
    ['ZUL-(?P<id>\\d????)', 'bad repetition operator: ????'],
    ['a**', 'bad repetition operator: **'],
    ['*a', 'missing argument to repetition operator: *'],
    ['[a-', 'missing ]: [a-'],
    ['[z-a]', 'invalid character class range: z-a'],
    ['(?=x)', 'invalid or unsupported Perl syntax: (?='],
    ['(?<!x)', 'invalid or unsupported Perl syntax: (?<'],
    ['(a)\\1', 'invalid escape sequence: \\1'],
    ['\\q', 'invalid escape sequence: \\q'],
    ['a{1001}', 'bad repetition operator: {1001}'],
    ['(?P<1x>a)', 'invalid named capture group: (?P<1x>'],
    ['x\\', 'trailing \\'],
  ])('%s is refused: %s', (pattern, message) => {
    expect(() => translatePattern(pattern)).toThrow(new PatternError(message));
  });

  test('RE2 syntax becomes JavaScript', () => {
    expect(translatePattern('#(?P<id>[0-9]+)')).toEqual({
      source: '#(?<id>[0-9]+)',
      flags: '',
      groupNames: ['id'],
    });
    expect(translatePattern('(?i)ab\\pL\\p{Greek}[[:digit:]x]').source).toBe(
      'ab\\p{L}\\p{Script=Greek}[0-9x]',
    );
    expect(translatePattern('(?i)x').flags).toBe('i');
    expect(translatePattern('a{b}\\#\\-]').source).toBe('a\\{b\\}#-\\]');
    expect(translatePattern('\\Qa.b\\E.').source).toBe('a\\.b.');
  });
});

describe('rendering and topics', () => {
  const ctx = (linkifiers: [string, string][]): RenderContext => ({
    userByName: () => undefined,
    userById: () => undefined,
    groupByName: () => undefined,
    streamByName: () => undefined,
    realmEmojiByName: () => undefined,
    baseUrl: 'http://zulip.testserver',
    linkifiers: linkifiers.map(([pattern, t]) => compileLinkifier({ pattern, url_template: t })!),
  });
  const trac: [string, string] = ['#(?P<id>[0-9]+)', 'https://trac.example.com/ticket/{id}'];
  const a = (href: string, text: string) =>
    `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;

  test.each([
    ['Hello #123 World', true],
    ['Hello #123World', false],
    ['Hello#123 World', false],
    ['Hello\u00a0#123\u00a0World', true],
    ['チケットは #123です', false],
    ['チケットは #123 です', true],
    ['(#123)', true],
    ['#123>', true],
    ['"#123"', true],
    ['#123@', true],
    [')#123(', false],
    ['##123', false],
  ])('%j is linked: %s', (content, linked) => {
    const html = renderMarkdown(content, ctx([trac])).html;
    expect(html.includes('https://trac.example.com/ticket/123')).toBe(linked);
    expect(topicLinks(content, ctx([trac]).linkifiers!, () => [])).toEqual(
      linked ? [{ text: '#123', url: 'https://trac.example.com/ticket/123' }] : [],
    );
  });

  test('the first linkifier wins, and text after another element does not start a match', () => {
    const linkifiers = ctx([
      ['(?P<id>ABC-[0-9]+)', 'https://trac.example.com/ticket/{id}'],
      ['(?P<id>[A-Z][A-Z0-9]*-[0-9]+)', 'https://other.example.com/ticket/{id}'],
      trac,
    ]);
    expect(renderMarkdown('We fix ABC-123 and XY-1 or `x`#12 *x*#13 *#14*', linkifiers).html).toBe(
      `<p>We fix ${a('https://trac.example.com/ticket/ABC-123', 'ABC-123')} and ${a('https://other.example.com/ticket/XY-1', 'XY-1')} or <code>x</code>#12 <em>x</em>#13 <em>${a('https://trac.example.com/ticket/14', '#14')}</em></p>`,
    );
    expect(renderMarkdown('line\n#15', linkifiers).html).toBe(
      `<p>line<br>\n${a('https://trac.example.com/ticket/15', '#15')}</p>`,
    );
  });

  test('topic links: linkifiers by priority, then bare URLs, in text order', () => {
    const linkifiers = ctx([
      ['http', 'http://example.com/'],
      ['b#(?P<id>[a-z]+)', 'http://example.com/b/{id}'],
      ['a#(?P<aid>[a-z]+) b#(?P<bid>[a-z]+)', 'http://example.com/a/{aid}/b/{bid}'],
      ['a#(?P<id>[a-z]+)', 'http://example.com/a/{id}'],
    ]).linkifiers!;
    const bare = (text: string) =>
      [...text.matchAll(/https?:\/\/\S+/g)].map((m) => ({
        index: m.index,
        lastIndex: m.index + m[0].length,
        url: m[0],
        text: m[0],
      }));
    expect(topicLinks('http://foo.com a#asd b#bar', linkifiers, bare)).toEqual([
      { text: 'http', url: 'http://example.com/' },
      { text: 'a#asd', url: 'http://example.com/a/asd' },
      { text: 'b#bar', url: 'http://example.com/b/bar' },
    ]);
    expect(topicLinks('#111 https://google.com #111', ctx([trac]).linkifiers!, bare)).toEqual([
      { text: '#111', url: 'https://trac.example.com/ticket/111' },
      { text: 'https://google.com', url: 'https://google.com' },
      { text: '#111', url: 'https://trac.example.com/ticket/111' },
    ]);
  });
});

// POST /messages/render: the server's renderer, as the sender's message
// would be rendered, without storing anything.
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['design']);
});
afterAll(() => server.stop());

function renderAs(content: unknown, encoding: 'form' | 'json' = 'form') {
  return server.call('POST', '/messages/render', {
    as: cast.member,
    params: { content },
    encoding,
  });
}

test('renders Markdown to the HTML a message gets', async () => {
  const res = await renderAs('**foo**');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ result: 'success', msg: '', rendered: '<p><strong>foo</strong></p>' });
  expect((await renderAs('*bar* and `code`', 'json')).body.rendered).toBe(
    '<p><em>bar</em> and <code>code</code></p>',
  );
  expect((await renderAs('')).body.rendered).toBe('');
});

test('mentions and channel links are resolved as in a sent message', async () => {
  const res = await renderAs('@**Cordelia Lear** see #**design**');
  expect(res.body.rendered).toContain(
    `<span class="user-mention" data-user-id="${cast.member2.id}">@Cordelia Lear</span>`,
  );
  expect(res.body.rendered).toContain('class="stream" data-stream-id="');
  // Someone unknown stays text.
  expect((await renderAs('@**Nobody Here**')).body.rendered).toBe(
    '<p>@<strong>Nobody Here</strong></p>',
  );
});

test('nothing is sent or stored', async () => {
  const q = await register(server, cast.member2, { event_types: ['message'] });
  await renderAs(`@**Cordelia Lear** hello`);
  expect(await eventsOf(server, cast.member2, q.queue_id)).toEqual([]);
  const res = await server.call('GET', '/messages', {
    as: cast.member,
    params: { anchor: 'newest', num_before: 5, num_after: 0 },
  });
  expect(res.body.messages).toEqual([]);
});

test('content is required', async () => {
  expectError(
    await server.call('POST', '/messages/render', { as: cast.member, params: {} }),
    400,
    'REQUEST_VARIABLE_MISSING',
    "Missing 'content' argument",
    { var_name: 'content' },
  );
});

describe('TeX math', () => {
  test('$$...$$ and ```math render with KaTeX, in a preview and in the sent message', async () => {
    const content = 'Energy: $$E = mc^2$$, costs $5\n\n```math\n\\int_0^1 x\\,dx\n```';
    const preview = (await renderAs(content)).body.rendered as string;
    expect(preview).toMatch(
      /^<p>Energy: <span class="katex"><span class="katex-mathml"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML">.*<\/span>, costs \$5<\/p>\n<p><span class="katex-display"><span class="katex">.*<\/span><\/span><\/p>$/s,
    );
    expect(preview).toContain('<annotation encoding="application/x-tex">E = mc^2</annotation>');
    expect(preview).toContain('<span class="base"><span class="strut" style="height:');

    const id = await sendToChannel(server, cast.member, 'design', 'math', content);
    const read = await server.call('GET', `/messages/${id}`, { as: cast.member2 });
    expect(read.body.message.content).toBe(preview);
    const raw = await server.call('GET', `/messages/${id}`, {
      as: cast.member2,
      params: { apply_markdown: false },
    });
    expect(raw.body.message.content).toBe(content);
  });

  test('invalid TeX is shown as written in a tex-error span, never an error', async () => {
    const res = await renderAs('$$\\frac{1$$\n\n```math\n\\bad{<b>}\n```');
    expect(res.status).toBe(200);
    expect(res.body.rendered).toBe(
      '<p><span class="tex-error">$$\\frac{1$$</span></p>\n' +
        '<p><span class="tex-error">\\bad{&lt;b&gt;}</span></p>',
    );
    const id = await sendToChannel(server, cast.member, 'design', 'math', '$$\\frac{1$$');
    const read = await server.call('GET', `/messages/${id}`, { as: cast.member });
    expect(read.body.message.content).toBe('<p><span class="tex-error">$$\\frac{1$$</span></p>');
  });
});

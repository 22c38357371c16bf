// The Jira integration and the Slack-compatible incoming webhook through
// HTTP: each fixture of test/fixtures/webhooks/jira and slack_incoming
// (written from the services' webhook documentation) posts the message and
// topic expected, read back with GET /messages; Jira's and Slack's markup
// become Markdown; events not handled, payloads of the wrong shape and a
// wrong API key are refused.
import { TestServer, type Cast } from './support/server';
import { expectError, subscribe } from './streams-fixtures';
import { deliver, fixture, makeHook, postedBy, type Hook } from './integrations-fixtures';

let server: TestServer;
let cast: Cast;
let hook: Hook;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['ops']);
  hook = await makeHook(server, cast.member, 'opshook');
}, 120_000);
afterAll(() => server.stop());

function send(
  integration: string,
  body: unknown,
  query: Record<string, string> = { stream: 'ops' },
) {
  return postedBy(server, cast.member, () => deliver(server, integration, hook, body, { query }));
}

/** Expects one channel message by the bot with `client`, in `topic`, reading `content`. */
function expectOne(
  result: Awaited<ReturnType<typeof send>>,
  client: string,
  topic: string,
  content: string,
) {
  expect(result.reply.body).toEqual({ result: 'success', msg: '' });
  expect(result.messages).toEqual([
    { id: expect.any(Number), type: 'stream', topic, content, client, sender_id: hook.id },
  ]);
}

describe('Jira', () => {
  const TOPIC = 'CASTLE-21: The gate squeaks';
  const LINK = '[CASTLE-21: The gate squeaks](https://lear-co.atlassian.net/browse/CASTLE-21)';
  const expectJira = (r: Awaited<ReturnType<typeof send>>, content: string, topic = TOPIC) =>
    expectOne(r, 'ZulipJiraWebhook', topic, content);

  test('an issue created, its markup as Markdown', async () => {
    expectJira(
      await send('jira', fixture('jira', 'issue_created')),
      [
        `Kent created ${LINK}:`,
        '',
        '* **Type**: Bug',
        '* **Priority**: High',
        '* **Assignee**: no one',
        '',
        '~~~ quote',
        'It squeaks every time it **opens**; oil is in `storeroom B`.',
        '~~~',
      ].join('\n'),
    );
  });

  test('an issue updated lists the fields changed', async () => {
    expectJira(
      await send('jira', fixture('jira', 'issue_updated')),
      `Regan updated ${LINK}:\n\n* status: ~~To Do~~ → **In Progress**\n* assignee: **Regan**`,
    );
  });

  test('comments, from an issue update and from a comment event', async () => {
    expectJira(
      await send('jira', fixture('jira', 'issue_updated__commented')),
      `Regan commented on ${LINK}:\n\n~~~ quote\nOiled it. See [the log](https://castle.example.com/log) and ask **kent**.\n~~~`,
    );
    expectJira(
      await send('jira', fixture('jira', 'comment_created')),
      `Kent commented on ${LINK}:\n\n~~~ quote\nStill squeaks a little.\n~~~`,
    );
    const deleted = fixture('jira', 'comment_created');
    deleted.webhookEvent = 'comment_deleted';
    expectJira(await send('jira', deleted), `Kent deleted a comment on ${LINK}.`);
  });

  test('the channel and topic of the URL are decoded once more, as Jira escapes them twice', async () => {
    expectJira(
      await send('jira', fixture('jira', 'comment_created'), {
        stream: 'ops',
        topic: 'gate%20work',
      }),
      `Kent commented on ${LINK}:\n\n~~~ quote\nStill squeaks a little.\n~~~`,
      'gate work',
    );
  });

  test('known events that are not posted succeed; exclude_events applies', async () => {
    const sprint = await send('jira', fixture('jira', 'sprint_started'));
    expect(sprint.reply.body).toEqual({ result: 'success', msg: '' });
    expect(sprint.messages).toEqual([]);
    const excluded = await send('jira', fixture('jira', 'comment_created'), {
      stream: 'ops',
      exclude_events: '["comment_*"]',
    });
    expect(excluded.messages).toEqual([]);
  });

  test('refusals: an event not handled, no event, a wrong shape', async () => {
    expectError(
      (await send('jira', fixture('jira', 'board_created'))).reply,
      400,
      'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      "The 'board_created' event isn't currently supported by the Jira webhook; ignoring",
      { webhook_name: 'Jira', event_type: 'board_created' },
    );
    expectError(
      (await send('jira', { issue: { key: 'CASTLE-21' } })).reply,
      400,
      'ANOMALOUS_WEBHOOK_PAYLOAD',
      'Unable to parse request: Did Jira generate this event?',
      { webhook_name: 'Jira' },
    );
    const payload = fixture('jira', 'issue_updated');
    delete payload.issue.fields.summary;
    const result = await send('jira', payload);
    expectError(
      result.reply,
      400,
      'BAD_REQUEST',
      'payload["issue"]["fields"]["summary"] field is missing',
    );
    expect(result.messages).toEqual([]);
  });
});

describe('Slack-compatible incoming webhook', () => {
  const expectSlack = (r: Awaited<ReturnType<typeof send>>, topic: string, content: string) =>
    expectOne(r, 'ZulipSlackIncomingWebhook', topic, content);

  test("text, after its emoji, with Slack's markup as Markdown, in no topic", async () => {
    // The empty topic reads back under its display name.
    expectSlack(
      await send('slack_incoming', fixture('slack_incoming', 'text')),
      'general chat',
      ':rocket: Deploy of **castle** finished: [run 88](https://deploy.example.com/runs/88). *All green.*',
    );
  });

  test('blocks, in the topic of the channel the payload names', async () => {
    expectSlack(
      await send('slack_incoming', fixture('slack_incoming', 'blocks')),
      'ops',
      [
        '## Nightly backup',
        '',
        'The backup of **castle-db** took 14 minutes.',
        '',
        '| | |',
        '|-|-|',
        '| **Size** | 12 GB |',
        '| **Kept** | 30 days |',
        '',
        '----',
        '',
        'Sent by the backup job',
      ].join('\n'),
    );
  });

  test("an attachment, in the URL's topic", async () => {
    expectSlack(
      await send('slack_incoming', fixture('slack_incoming', 'attachments'), {
        stream: 'ops',
        topic: 'builds',
      }),
      'builds',
      [
        '## [Build 318](https://ci.example.com/builds/318)',
        '',
        'A build failed',
        '',
        'The *links* job failed on `main`.',
        '',
        '**Branch**: main',
        '**Duration**: 5 min',
        '',
        'CI',
      ].join('\n'),
    );
  });

  test('a payload with nothing to show posts nothing', async () => {
    const result = await send('slack_incoming', {
      text: '',
      blocks: [{ type: 'actions', elements: [] }],
    });
    expect(result.reply.body).toEqual({ result: 'success', msg: '' });
    expect(result.messages).toEqual([]);
  });

  test('refusals: a wrong shape, a form body, a wrong API key', async () => {
    const bad = await send('slack_incoming', {
      blocks: [{ type: 'header', text: 'Nightly backup' }],
    });
    expectError(bad.reply, 400, 'BAD_REQUEST', 'payload["blocks"][0]["text"] is not a dict');
    expect(bad.messages).toEqual([]);
    expectError(
      (await send('slack_incoming', { text: 'x', attachments: [{ ts: 'yesterday' }] })).reply,
      400,
      'BAD_REQUEST',
      'payload["attachments"][0]["ts"] is not an integer',
    );
    expectError(
      await server.call('POST', `/external/slack_incoming?api_key=${hook.apiKey}`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'payload=%7B%7D',
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type application/x-www-form-urlencoded is not supported here; send application/json',
    );
    expectError(
      await deliver(server, 'slack_incoming', { id: 0, apiKey: 'short' }, { text: 'hello' }),
      401,
      'UNAUTHORIZED',
      'Malformed API key',
    );
  });
});

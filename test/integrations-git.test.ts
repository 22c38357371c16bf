// The GitHub and GitLab integrations through HTTP: each event of the
// fixtures (test/fixtures/webhooks/github, gitlab, written from the services'
// webhook documentation) posts the message and topic expected, read back with
// GET /messages; the URL's filters (branches, private repositories,
// only_events, exclude_events, topic); and the refusals: unknown events, a
// missing event header, payloads of the wrong shape, a wrong API key.
import { TestServer, type Cast } from './support/server';
import { expectError, subscribe } from './streams-fixtures';
import { deliver, fixture, makeHook, postedBy, type Hook } from './integrations-fixtures';

let server: TestServer;
let cast: Cast;
let hook: Hook;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['code']);
  hook = await makeHook(server, cast.member, 'githook');
}, 120_000);
afterAll(() => server.stop());

/** Delivers a fixture and returns the answer and what was posted. */
function send(
  integration: 'github' | 'gitlab',
  event: string | undefined,
  body: unknown,
  query: Record<string, string> = { stream: 'code' },
) {
  const header = integration === 'github' ? 'X-GitHub-Event' : 'X-Gitlab-Event';
  return postedBy(server, cast.member, () =>
    deliver(server, integration, hook, body, {
      query,
      headers: event === undefined ? {} : { [header]: event },
    }),
  );
}

/** Expects one channel message posted by the bot with `client`, in `topic`, reading `content`. */
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

const CROWN = 'https://github.com/lear-co/crown';

describe('GitHub', () => {
  const github = (event: string | undefined, body: unknown, query?: Record<string, string>) =>
    send('github', event, body, query);
  const expectGitHub = (r: Awaited<ReturnType<typeof send>>, topic: string, content: string) =>
    expectOne(r, 'ZulipGitHubWebhook', topic, content);

  test('a push lists its commits, in topic repo / branch', async () => {
    expectGitHub(
      await github('push', fixture('github', 'push')),
      'crown / main',
      [
        `cordelia-lear pushed [2 commits](${CROWN}/compare/6113728f27ae...0d1a26e67d8f) to branch main.`,
        '',
        `* Tighten the spacing of the logo ([a10867b](${CROWN}/commit/a10867b14bb761a232cd80139fbd4c0d33264240))`,
        `* Use the new logo on the home page ([0d1a26e](${CROWN}/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))`,
      ].join('\n'),
    );
  });

  test('a tag pushed, in topic repo', async () => {
    expectGitHub(
      await github('push', fixture('github', 'push__tag')),
      'crown',
      'cordelia-lear pushed tag v2.0.0.',
    );
  });

  test('a pull request opened, with its branches and description', async () => {
    expectGitHub(
      await github('pull_request', fixture('github', 'pull_request__opened')),
      'crown / PR #42 Dark mode for the style guide',
      [
        `cordelia-lear opened [PR #42](${CROWN}/pull/42) from \`cordelia-lear:dark-mode\` to \`lear-co:main\`:`,
        '',
        '~~~ quote',
        'Adds a dark palette.',
        '',
        'Screenshots are in the description of #40.',
        '~~~',
      ].join('\n'),
    );
  });

  test('a pull request merged', async () => {
    expectGitHub(
      await github('pull_request', fixture('github', 'pull_request__closed')),
      'crown / PR #42 Dark mode for the style guide',
      `lear merged [PR #42](${CROWN}/pull/42).`,
    );
  });

  test('an issue opened, and labeled', async () => {
    const topic = 'crown / issue #40 The logo is blurry on phones';
    expectGitHub(
      await github('issues', fixture('github', 'issues__opened')),
      topic,
      `kent opened [issue #40](${CROWN}/issues/40):\n\n~~~ quote\nOn a phone the crown looks *soft*; see the attached screenshot.\n~~~`,
    );
    expectGitHub(
      await github('issues', fixture('github', 'issues__labeled')),
      topic,
      `cordelia-lear added the label **bug** to [issue #40](${CROWN}/issues/40).`,
    );
  });

  test('a comment on a pull request goes to the pull request topic', async () => {
    expectGitHub(
      await github('issue_comment', fixture('github', 'issue_comment__created')),
      'crown / PR #42 Dark mode for the style guide',
      `kent [commented](${CROWN}/pull/42#issuecomment-88121) on [PR #42](${CROWN}/pull/42):\n\n~~~ quote\nLooks good to me. Could the links be a shade lighter?\n~~~`,
    );
  });

  test('a comment edited without a change posts nothing', async () => {
    const payload = fixture('github', 'issue_comment__created');
    payload.action = 'edited';
    payload.changes = { body: { from: payload.comment.body } };
    const result = await github('issue_comment', payload);
    expect(result.reply.body).toEqual({ result: 'success', msg: '' });
    expect(result.messages).toEqual([]);
  });

  test('a release published', async () => {
    expectGitHub(
      await github('release', fixture('github', 'release__published')),
      'crown',
      `lear published release [Crown 2.0](${CROWN}/releases/tag/v2.0.0) for tag v2.0.0.`,
    );
  });

  test('a workflow run is posted when it completes, not while it runs', async () => {
    expectGitHub(
      await github('workflow_run', fixture('github', 'workflow_run__completed')),
      'crown / CI',
      `Workflow [CI #318](${CROWN}/actions/runs/700123) :cross_mark: failed on branch dark-mode (pull_request, [5c6a0b2](${CROWN}/commit/5c6a0b2d1e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b)).`,
    );
    const running = await github('workflow_run', fixture('github', 'workflow_run__in_progress'));
    expect(running.reply.body).toEqual({ result: 'success', msg: '' });
    expect(running.messages).toEqual([]);
  });

  test('the ping of a new webhook says it is set up; labels of pull requests say nothing', async () => {
    expectGitHub(
      await github('ping', fixture('github', 'ping')),
      'crown',
      'GitHub webhook has been successfully configured by lear.',
    );
    const labeled = await github('pull_request', fixture('github', 'pull_request__labeled'));
    expect(labeled.reply.body).toEqual({ result: 'success', msg: '' });
    expect(labeled.messages).toEqual([]);
  });

  test("the URL's topic replaces the topic, and the message names the title", async () => {
    expectGitHub(
      await github('issues', fixture('github', 'issues__labeled'), {
        stream: 'code',
        topic: 'triage',
      }),
      'triage',
      `cordelia-lear added the label **bug** to [issue #40 The logo is blurry on phones](${CROWN}/issues/40).`,
    );
  });

  test('branches: pushes to other branches are not posted', async () => {
    const push = fixture('github', 'push');
    const elsewhere = await github('push', push, { stream: 'code', branches: 'release, dev' });
    expect(elsewhere.reply.body).toEqual({ result: 'success', msg: '' });
    expect(elsewhere.messages).toEqual([]);
    const listed = await github('push', push, { stream: 'code', branches: 'dev , main' });
    expect(listed.messages.map((m) => m.topic)).toEqual(['crown / main']);
  });

  test('ignore_private_repositories drops private repositories only', async () => {
    const push = fixture('github', 'push__private');
    const query = { stream: 'code', ignore_private_repositories: 'true' };
    expect((await github('push', push, query)).messages).toEqual([]);
    expectGitHub(
      await github('push', push),
      'treasury / main',
      `goneril force-pushed [1 commit](https://github.com/lear-co/treasury/compare/6113728f27ae...0d1a26e67d8f) to branch main.\n\n* Rewrite the budget ([0d1a26e](https://github.com/lear-co/treasury/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))`,
    );
    expect((await github('push', fixture('github', 'push'), query)).messages).toHaveLength(1);
  });

  test('only_events and exclude_events, with wildcards', async () => {
    const only = { stream: 'code', only_events: '["issue*"]' };
    expect((await github('push', fixture('github', 'push'), only)).messages).toEqual([]);
    expect(
      (await github('issues', fixture('github', 'issues__opened'), only)).messages,
    ).toHaveLength(1);
    const exclude = { stream: 'code', exclude_events: '["push_*", "release"]' };
    expect((await github('push', fixture('github', 'push'), exclude)).messages).toEqual([]);
    expect(
      (await github('release', fixture('github', 'release__published'), exclude)).messages,
    ).toEqual([]);
    expect((await github('ping', fixture('github', 'ping'), exclude)).messages).toHaveLength(1);
    expectError(
      (
        await github('push', fixture('github', 'push'), {
          stream: 'code',
          only_events: '{"push": 1}',
        })
      ).reply,
      400,
      'BAD_REQUEST',
      'only_events is not a list',
    );
  });

  test("without a channel, a direct message to the bot's owner", async () => {
    const result = await github('release', fixture('github', 'release__published'), {});
    expect(result.messages).toEqual([
      expect.objectContaining({
        type: 'private',
        sender_id: hook.id,
        client: 'ZulipGitHubWebhook',
      }),
    ]);
  });

  test('an event not handled is refused, and nothing is posted', async () => {
    const result = await github('star', fixture('github', 'star__created'));
    expectError(
      result.reply,
      400,
      'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      "The 'star:created' event isn't currently supported by the GitHub webhook; ignoring",
      { webhook_name: 'GitHub', event_type: 'star:created' },
    );
    expect(result.messages).toEqual([]);
    const review = fixture('github', 'pull_request__labeled');
    review.action = 'frobnicated';
    expectError(
      (await github('pull_request', review)).reply,
      400,
      'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      "The 'pull_request:frobnicated' event isn't currently supported by the GitHub webhook; ignoring",
      { webhook_name: 'GitHub', event_type: 'pull_request:frobnicated' },
    );
  });

  test("a request without the event header is refused, and the bot's owner is told", async () => {
    const result = await github(undefined, fixture('github', 'push'));
    expectError(
      result.reply,
      400,
      'MISSING_HTTP_EVENT_HEADER',
      "Missing the HTTP event header 'X-GitHub-Event'",
      { header: 'X-GitHub-Event' },
    );
    expect(result.messages).toEqual([
      expect.objectContaining({
        type: 'private',
        sender_id: hook.id,
        content:
          'Your bot `githook-bot@chat.test` received a request at `/api/v1/external/github` without the `X-GitHub-Event` header, in which GitHub names the event. This usually means that the service was given the URL of another integration, or is a version that does not send that header.',
      }),
    ]);
  });

  test('payloads of the wrong shape are refused before anything is posted', async () => {
    const push = fixture('github', 'push');
    delete push.commits[1].url;
    const missing = await github('push', push);
    expectError(missing.reply, 400, 'BAD_REQUEST', 'payload["commits"][1]["url"] field is missing');
    expect(missing.messages).toEqual([]);
    const pr = fixture('github', 'pull_request__opened');
    pr.pull_request.number = '42';
    expectError(
      (await github('pull_request', pr)).reply,
      400,
      'BAD_REQUEST',
      'payload["pull_request"]["number"] is not an integer',
    );
    expectError(
      (
        await github('issues', {
          action: 'opened',
          issue: [],
          repository: { name: 'crown' },
          sender: { login: 'kent' },
        })
      ).reply,
      400,
      'BAD_REQUEST',
      'payload["issue"] is not a dict',
    );
    expectError(
      (await github('push', { ...fixture('github', 'push'), deleted: 'no' })).reply,
      400,
      'BAD_REQUEST',
      'payload["deleted"] is not a boolean',
    );
  });

  test('a wrong API key is refused', async () => {
    const res = await deliver(
      server,
      'github',
      { id: 0, apiKey: 'Zq8sV2pWcD4kLm9tRb7yXe3uNh6jFa1g' },
      fixture('github', 'push'),
      { query: { stream: 'code' }, headers: { 'X-GitHub-Event': 'push' } },
    );
    expectError(res, 401, 'UNAUTHORIZED', 'Invalid API key');
  });
});

const CASTLE = 'https://gitlab.example.com/lear-co/castle';

describe('GitLab', () => {
  const gitlab = (event: string | undefined, body: unknown, query?: Record<string, string>) =>
    send('gitlab', event, body, query);
  const expectGitLab = (r: Awaited<ReturnType<typeof send>>, topic: string, content: string) =>
    expectOne(r, 'ZulipGitlabWebhook', topic, content);
  const MR_TOPIC = 'Castle / MR #7 Open the drawbridge at dawn';
  const ISSUE_TOPIC = 'Castle / issue #12 The moat page is missing';

  test('a push lists its commits, in topic project / branch', async () => {
    expectGitLab(
      await gitlab('Push Hook', fixture('gitlab', 'push_hook')),
      'Castle / main',
      [
        `Regan pushed [2 commits](${CASTLE}/-/compare/95790bf891e76fee5e1747ab589903a6a1f80f22...da1560886d4f094c3e6c9ef40349f7d38b5d27d7) to branch main.`,
        '',
        `* Add the drawbridge page ([b6568db](${CASTLE}/-/commit/b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327))`,
        `* Fix the moat's colour ([da15608](${CASTLE}/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7))`,
      ].join('\n'),
    );
  });

  test('a merge request opened (without its template comments), then merged', async () => {
    expectGitLab(
      await gitlab('Merge Request Hook', fixture('gitlab', 'merge_request_hook__open')),
      MR_TOPIC,
      `Regan opened [MR #7](${CASTLE}/-/merge_requests/7) from \`dawn\` to \`main\`:\n\n~~~ quote\nThe drawbridge now opens at six.\n~~~`,
    );
    expectGitLab(
      await gitlab('Merge Request Hook', fixture('gitlab', 'merge_request_hook__merge')),
      MR_TOPIC,
      `Lear merged [MR #7](${CASTLE}/-/merge_requests/7).`,
    );
  });

  test('an issue opened, then closed', async () => {
    expectGitLab(
      await gitlab('Issue Hook', fixture('gitlab', 'issue_hook__open')),
      ISSUE_TOPIC,
      `Kent opened [issue #12](${CASTLE}/-/issues/12):\n\n~~~ quote\nVisitors keep asking where the moat is.\n~~~`,
    );
    expectGitLab(
      await gitlab('Issue Hook', fixture('gitlab', 'issue_hook__close')),
      ISSUE_TOPIC,
      `Regan closed [issue #12](${CASTLE}/-/issues/12).`,
    );
  });

  test('a comment on a merge request goes to its topic', async () => {
    expectGitLab(
      await gitlab('Note Hook', fixture('gitlab', 'note_hook__merge_request')),
      MR_TOPIC,
      `Kent [commented](${CASTLE}/-/merge_requests/7#note_1244) on [MR #7](${CASTLE}/-/merge_requests/7):\n\n~~~ quote\nSix is early for the guards. Seven?\n~~~`,
    );
  });

  test('a pipeline that failed, with its jobs', async () => {
    expectGitLab(
      await gitlab('Pipeline Hook', fixture('gitlab', 'pipeline_hook__failed')),
      'Castle / main',
      `[Pipeline #31](${CASTLE}/-/pipelines/31) :cross_mark: failed. Jobs:\n* build / compile: success\n* test / links: failed`,
    );
  });

  test('filters: branches, only_events with the action in the name', async () => {
    expect(
      (
        await gitlab('Push Hook', fixture('gitlab', 'push_hook'), {
          stream: 'code',
          branches: 'dawn',
        })
      ).messages,
    ).toEqual([]);
    const only = { stream: 'code', only_events: '["Issue Hook close", "Merge Request Hook *"]' };
    expect(
      (await gitlab('Issue Hook', fixture('gitlab', 'issue_hook__open'), only)).messages,
    ).toEqual([]);
    expect(
      (await gitlab('Issue Hook', fixture('gitlab', 'issue_hook__close'), only)).messages,
    ).toHaveLength(1);
    expect(
      (await gitlab('Merge Request Hook', fixture('gitlab', 'merge_request_hook__merge'), only))
        .messages,
    ).toHaveLength(1);
  });

  test('refusals: an event not handled, an unknown action, no header, a wrong shape', async () => {
    expectError(
      (await gitlab('Wiki Page Hook', fixture('gitlab', 'wiki_page_hook__create'))).reply,
      400,
      'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      "The 'Wiki Page Hook' event isn't currently supported by the GitLab webhook; ignoring",
      { webhook_name: 'GitLab', event_type: 'Wiki Page Hook' },
    );
    const issue = fixture('gitlab', 'issue_hook__close');
    issue.object_attributes.action = 'merge';
    expectError(
      (await gitlab('Issue Hook', issue)).reply,
      400,
      'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      "The 'Issue Hook merge' event isn't currently supported by the GitLab webhook; ignoring",
      { webhook_name: 'GitLab', event_type: 'Issue Hook merge' },
    );
    expectError(
      (await gitlab(undefined, fixture('gitlab', 'push_hook'))).reply,
      400,
      'MISSING_HTTP_EVENT_HEADER',
      "Missing the HTTP event header 'X-Gitlab-Event'",
      { header: 'X-Gitlab-Event' },
    );
    const pipeline = fixture('gitlab', 'pipeline_hook__failed');
    pipeline.builds[1] = { name: 'links' };
    const bad = await gitlab('Pipeline Hook', pipeline);
    expectError(bad.reply, 400, 'BAD_REQUEST', 'payload["builds"][1]["stage"] field is missing');
    expect(bad.messages).toEqual([]);
  });
});

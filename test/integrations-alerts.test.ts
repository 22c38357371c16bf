// The alerting integrations through HTTP: Sentry (issue alerts and issue
// changes), Grafana (alerts firing and resolved, and legacy alerts) and
// Prometheus Alertmanager (alerts grouped by a label). Each fixture of
// test/fixtures/webhooks/ (written from the services' webhook documentation)
// posts the messages and topics expected, read back with GET /messages;
// events not handled and payloads of the wrong shape are refused with a 400
// before anything is posted.
import { TestServer, type Cast } from './support/server';
import { expectError, subscribe } from './streams-fixtures';
import { deliver, fixture, makeHook, postedBy, type Hook } from './integrations-fixtures';

let server: TestServer;
let cast: Cast;
let hook: Hook;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['alerts']);
  hook = await makeHook(server, cast.member, 'alerthook');
}, 120_000);
afterAll(() => server.stop());

/** Delivers `body` to an integration, posting to the alerts channel, and returns what was posted. */
function send(integration: string, body: unknown, query: Record<string, string> = {}) {
  return postedBy(server, cast.member, () =>
    deliver(server, integration, hook, body, { query: { stream: 'alerts', ...query } }),
  );
}

/** Expects the messages posted, as [topic, content] pairs, all by the bot with `client`. */
function expectPosted(
  result: Awaited<ReturnType<typeof send>>,
  client: string,
  messages: [string, string][],
) {
  expect(result.reply.body).toEqual({ result: 'success', msg: '' });
  expect(result.messages).toEqual(
    messages.map(([topic, content]) => ({
      id: expect.any(Number),
      type: 'stream',
      topic,
      content,
      client,
      sender_id: hook.id,
    })),
  );
}

describe('Sentry', () => {
  const ISSUE = "TypeError: Cannot read properties of undefined (reading 'crown')";
  const ISSUE_URL = 'https://sentry.io/organizations/lear-co/issues/1117540176/';
  /** The issue's title as a topic: cut to 60 characters. */
  const ISSUE_TOPIC = "TypeError: Cannot read properties of undefined (reading '...";

  test('an issue alert, with the lines where the exception was raised', async () => {
    expectPosted(await send('sentry', fixture('sentry', 'event_alert')), 'ZulipSentryWebhook', [
      [
        'ZeroDivisionError: division by zero',
        [
          ':alert: **New error event**: [ZeroDivisionError: division by zero](https://sentry.io/organizations/lear-co/issues/1117540176/events/e4874d664c3540c1a32eab185f12c5ab/)',
          '',
          '* **Culprit**: crown.views in budget',
          '* **Environment**: production',
          '* **Seen**: <time:2026-11-20T09:40:12Z>',
          '* **Alert rule**: Tell the crown team about new errors',
          '',
          'In `crown/views.py:14`:',
          '```',
          '    def budget(request):',
          '        knights = count_knights()',
          '-->     share = 100 / knights',
          "        return render(request, 'budget.html', {'share': share})",
          '```',
        ].join('\n'),
      ],
    ]);
  });

  test('an issue created, then resolved', async () => {
    expectPosted(await send('sentry', fixture('sentry', 'issue__created')), 'ZulipSentryWebhook', [
      [ISSUE_TOPIC, `New issue [${ISSUE}](${ISSUE_URL}) in crown-web (level: error).`],
    ]);
    expectPosted(await send('sentry', fixture('sentry', 'issue__resolved')), 'ZulipSentryWebhook', [
      [ISSUE_TOPIC, `Cordelia resolved the issue [${ISSUE}](${ISSUE_URL}).`],
    ]);
  });

  test('only_events picks issue changes by action', async () => {
    const only = { only_events: '["issue_resolved"]' };
    expect((await send('sentry', fixture('sentry', 'issue__created'), only)).messages).toEqual([]);
    expect((await send('sentry', fixture('sentry', 'event_alert'), only)).messages).toEqual([]);
    expect(
      (await send('sentry', fixture('sentry', 'issue__resolved'), only)).messages,
    ).toHaveLength(1);
  });

  test('refusals: a resource not handled, a payload not from Sentry, a wrong shape', async () => {
    const metric = await send('sentry', fixture('sentry', 'metric_alert'));
    expectError(
      metric.reply,
      400,
      'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      "The 'metric_alert' event isn't currently supported by the Sentry webhook; ignoring",
      { webhook_name: 'Sentry', event_type: 'metric_alert' },
    );
    expect(metric.messages).toEqual([]);
    expectError(
      (await send('sentry', { hello: 'world' })).reply,
      400,
      'ANOMALOUS_WEBHOOK_PAYLOAD',
      'Unable to parse request: Did Sentry generate this event?',
      { webhook_name: 'Sentry' },
    );
    const alert = fixture('sentry', 'event_alert');
    alert.data.event.title = 5;
    expectError(
      (await send('sentry', alert)).reply,
      400,
      'BAD_REQUEST',
      'payload["data"]["event"]["title"] is not a string',
    );
    const frames = fixture('sentry', 'event_alert');
    frames.data.event.exception.values[0].stacktrace.frames[1].pre_context = 'def budget';
    expectError(
      (await send('sentry', frames)).reply,
      400,
      'BAD_REQUEST',
      'payload["data"]["event"]["exception"]["values"][0]["stacktrace"]["frames"][1]["pre_context"] is not a list',
    );
  });
});

describe('Grafana', () => {
  test('an alert firing, in topic [alertname]', async () => {
    expectPosted(
      await send('grafana', fixture('grafana', 'alerts__firing')),
      'ZulipGrafanaWebhook',
      [
        [
          '[High memory use]',
          [
            ':alert: **Firing**: High memory use',
            '',
            'web-1 uses more than 90% of its memory',
            '',
            'Memory has stayed above 90% for 10 minutes.',
            '',
            '* **Started**: <time:2026-11-20T09:00:00Z>',
            '* **Labels**: alertname=High memory use, instance=web-1, team=castle',
            '* **Values**: B=93.5, C=1',
            '',
            '[Source](https://grafana.example.com/alerting/grafana/aX1/view) · [Silence](https://grafana.example.com/alerting/silence/new?matcher=alertname%3DHigh+memory+use)',
          ].join('\n'),
        ],
      ],
    );
  });

  test('two alerts resolved, one message each; without a name, the fingerprint', async () => {
    expectPosted(
      await send('grafana', fixture('grafana', 'alerts__resolved')),
      'ZulipGrafanaWebhook',
      [
        [
          '[High memory use]',
          [
            ':check: **Resolved**: High memory use',
            '',
            '* **Started**: <time:2026-11-20T09:00:00Z>',
            '* **Ended**: <time:2026-11-20T09:25:00Z>',
            '* **Labels**: alertname=High memory use, instance=web-1',
            '',
            '[Source](https://grafana.example.com/alerting/grafana/aX1/view)',
          ].join('\n'),
        ],
        [
          '[0b1c2d3e4f5a6b7c]',
          [
            ':check: **Resolved**',
            '',
            '* **Started**: <time:2026-11-20T09:02:00Z>',
            '* **Ended**: <time:2026-11-20T09:26:00Z>',
            '* **Labels**: instance=web-2',
          ].join('\n'),
        ],
      ],
    );
  });

  test('a legacy alert, in a topic named after its title', async () => {
    expectPosted(
      await send('grafana', fixture('grafana', 'legacy__alerting')),
      'ZulipGrafanaWebhook',
      [
        [
          '[Alerting] Test notification',
          [
            ':alert: **Alerting**: [Test notification](https://grafana.example.com/d/abc/castle?fullscreen&edit&tab=alert&panelId=1)',
            '',
            'Someone is testing the alert notification within Grafana.',
            '',
            '* **High value**: 100',
            '* **Higher Value**: 200',
            '',
            '[Graph](https://grafana.example.com/render/d-solo/abc/panel.png)',
          ].join('\n'),
        ],
      ],
    );
  });

  test('exclude_events leaves out resolved alerts', async () => {
    const exclude = { exclude_events: '["resolved"]' };
    expect(
      (await send('grafana', fixture('grafana', 'alerts__resolved'), exclude)).messages,
    ).toEqual([]);
    expect(
      (await send('grafana', fixture('grafana', 'alerts__firing'), exclude)).messages,
    ).toHaveLength(1);
  });

  test('payloads of the wrong shape: nothing is posted, even for the alerts before', async () => {
    const payload = fixture('grafana', 'alerts__resolved');
    payload.alerts[1].status = 'pending';
    const result = await send('grafana', payload);
    expectError(result.reply, 400, 'BAD_REQUEST', 'Invalid payload["alerts"][1]["status"]');
    expect(result.messages).toEqual([]);
    expectError(
      (await send('grafana', { alerts: 'none' })).reply,
      400,
      'BAD_REQUEST',
      'payload["alerts"] is not a list',
    );
    expectError(
      (await send('grafana', { state: 'ok' })).reply,
      400,
      'BAD_REQUEST',
      'payload["ruleName"] field is missing',
    );
  });
});

describe('Alertmanager', () => {
  const graph = (expr: string) =>
    `http://prometheus.example.com:9090/graph?g0.expr=${expr}&g0.tab=0`;

  test('alerts grouped by instance, firing and resolved apart', async () => {
    expectPosted(
      await send('alertmanager', fixture('alertmanager', 'alerts')),
      'ZulipAlertmanagerWebhook',
      [
        [
          'web-1',
          `:alert: **Firing**:\n* DiskAlmostFull ([graph](${graph('disk_used%3E0.9')}))\n* HighLoad ([graph](${graph('load%3E4')}))`,
        ],
        ['web-2', `:check: **Resolved**: DiskAlmostFull ([graph](${graph('disk_used%3E0.9')}))`],
      ],
    );
  });

  test('name and desc pick the label of the topic and the one describing each alert', async () => {
    expectPosted(
      await send('alertmanager', fixture('alertmanager', 'alerts'), {
        name: 'job',
        desc: 'summary',
      }),
      'ZulipAlertmanagerWebhook',
      [
        [
          'castle',
          `:alert: **Firing**:\n* Disk of web-1 is 95% full ([graph](${graph('disk_used%3E0.9')}))\n* <missing field: summary> ([graph](${graph('load%3E4')}))`,
        ],
        [
          'castle',
          `:check: **Resolved**: <missing field: summary> ([graph](${graph('disk_used%3E0.9')}))`,
        ],
      ],
    );
  });

  test('payloads of the wrong shape', async () => {
    expectError(
      (await send('alertmanager', { status: 'firing' })).reply,
      400,
      'BAD_REQUEST',
      'payload["alerts"] field is missing',
    );
    const payload = fixture('alertmanager', 'alerts');
    payload.alerts[0].labels.instance = 1;
    const result = await send('alertmanager', payload);
    expectError(
      result.reply,
      400,
      'BAD_REQUEST',
      'payload["alerts"][0]["labels"]["instance"] is not a string',
    );
    expect(result.messages).toEqual([]);
  });
});

// Incoming webhooks: POST /external/json, the generic JSON integration, and
// the integrations of other services at Zulip's addresses (/external/github,
// ...). The request body is the payload itself (x-payload-body), not
// parameters; each integration reads it (and its event header) into the
// messages it posts before the first is posted.
import {
  doNoticeMissingEventHeader,
  doPostIntegrationMessages,
  doSendWebhookMessage,
} from '../actions/webhooks/webhooks';
import { ALERTMANAGER_CLIENT, alertmanagerMessages } from '../lib/webhooks/alertmanager';
import { GITHUB_CLIENT, GITHUB_EVENT_HEADER, githubMessages } from '../lib/webhooks/github';
import { GITLAB_CLIENT, GITLAB_EVENT_HEADER, gitlabMessages } from '../lib/webhooks/gitlab';
import { GRAFANA_CLIENT, grafanaMessages } from '../lib/webhooks/grafana';
import {
  headerOf,
  missingEventHeader,
  type IntegrationMessage,
} from '../lib/webhooks/integrations';
import { JIRA_CLIENT, jiraMessages } from '../lib/webhooks/jira';
import {
  JSON_WEBHOOK_CLIENT,
  JSON_WEBHOOK_TOPIC,
  jsonWebhookContent,
} from '../lib/webhooks/json-payload';
import { PayloadValue } from '../lib/webhooks/payload';
import { SENTRY_CLIENT, sentryMessages } from '../lib/webhooks/sentry';
import { SLACK_INCOMING_CLIENT, slackIncomingMessages } from '../lib/webhooks/slack-incoming';
import type { AuthedRequest, Handler, HandlerMap, OperationId } from './types';

/** Posts the payload as a `json` code block, to a channel or to the bot's owner. */
export const jsonWebhook: Handler<'json-webhook'> = async ({
  params,
  payload,
  services,
  user,
  realm,
}) => {
  await doSendWebhookMessage(services, realm, user, {
    stream: params.stream,
    topic: params.topic ?? JSON_WEBHOOK_TOPIC,
    content: jsonWebhookContent(payload),
    client: JSON_WEBHOOK_CLIENT,
  });
  return {};
};

/** The parameters every integration's URL takes. */
interface IntegrationParams {
  stream?: string;
  topic?: string;
  /** Decoded from JSON text by the validator (`x-json-schema`): a list of strings. */
  only_events?: unknown;
  exclude_events?: unknown;
}

/** The event filters of a URL, as lists of patterns. */
function patterns(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map(String) : undefined;
}

/**
 * Reads the payload with `read` (refusing it before anything is posted),
 * then posts the messages it makes as the requester, with the URL's channel,
 * topic and event filters.
 */
async function postIntegration<K extends OperationId>(
  req: AuthedRequest<K>,
  params: IntegrationParams,
  client: string,
  read: (payload: PayloadValue) => IntegrationMessage[],
  decode: (text: string) => string = (text) => text,
): Promise<Record<string, never>> {
  const messages = read(new PayloadValue(req.payload));
  await doPostIntegrationMessages(
    req.services,
    req.realm,
    req.user,
    {
      stream: params.stream === undefined ? undefined : decode(params.stream),
      topic: params.topic === undefined ? undefined : decode(params.topic),
      onlyEvents: patterns(params.only_events),
      excludeEvents: patterns(params.exclude_events),
      client,
    },
    messages,
  );
  return {};
}

/**
 * Refuses a request without the header in which `service` names its events,
 * after telling the bot's owner: the service was most likely given the URL
 * of another integration.
 */
async function requireEventHeader<K extends OperationId>(
  req: AuthedRequest<K>,
  service: string,
  header: string,
  path: string,
): Promise<void> {
  if (headerOf(req.headers, header) !== undefined) return;
  await doNoticeMissingEventHeader(req.services, req.realm, req.user, { path, header, service });
  throw missingEventHeader(header);
}

/** GitHub's events, named by the X-GitHub-Event header. */
export const githubWebhook: Handler<'github-webhook'> = async (req) => {
  const { params } = req;
  await requireEventHeader(req, 'GitHub', GITHUB_EVENT_HEADER, '/api/v1/external/github');
  return postIntegration(req, params, GITHUB_CLIENT, (payload) =>
    githubMessages(payload, req.headers, {
      branches: params.branches,
      ignorePrivateRepositories: params.ignore_private_repositories ?? false,
      includeTitle: params.topic !== undefined,
    }),
  );
};

/** GitLab's events, named by the X-Gitlab-Event header. */
export const gitlabWebhook: Handler<'gitlab-webhook'> = async (req) => {
  const { params } = req;
  await requireEventHeader(req, 'GitLab', GITLAB_EVENT_HEADER, '/api/v1/external/gitlab');
  return postIntegration(req, params, GITLAB_CLIENT, (payload) =>
    gitlabMessages(payload, req.headers, {
      branches: params.branches,
      includeTitle: params.topic !== undefined,
    }),
  );
};

/** Sentry's issue alerts and issue changes. */
export const sentryWebhook: Handler<'sentry-webhook'> = (req) =>
  postIntegration(req, req.params, SENTRY_CLIENT, (payload) =>
    sentryMessages(payload, req.headers),
  );

/** Grafana's alerts, firing and resolved. */
export const grafanaWebhook: Handler<'grafana-webhook'> = (req) =>
  postIntegration(req, req.params, GRAFANA_CLIENT, grafanaMessages);

/** Prometheus Alertmanager's notifications, grouped by the label the URL names. */
export const alertmanagerWebhook: Handler<'alertmanager-webhook'> = (req) =>
  postIntegration(req, req.params, ALERTMANAGER_CLIENT, (payload) =>
    alertmanagerMessages(payload, {
      name: req.params.name ?? 'instance',
      desc: req.params.desc ?? 'alertname',
    }),
  );

/** `text` with its percent-escapes decoded, when it has any that decode. */
function unescaped(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Jira's issue and comment events. Jira escapes the URL's parameters twice,
 * so the channel and topic are decoded once more, as Zulip does.
 */
export const jiraWebhook: Handler<'jira-webhook'> = (req) =>
  postIntegration(req, req.params, JIRA_CLIENT, jiraMessages, unescaped);

/** A message written for Slack's incoming webhooks. */
export const slackIncomingWebhook: Handler<'slack-incoming-webhook'> = (req) =>
  postIntegration(req, req.params, SLACK_INCOMING_CLIENT, slackIncomingMessages);

/** The operations of this area, by operationId. */
export const webhookHandlers = {
  'json-webhook': jsonWebhook,
  'github-webhook': githubWebhook,
  'gitlab-webhook': gitlabWebhook,
  'sentry-webhook': sentryWebhook,
  'grafana-webhook': grafanaWebhook,
  'alertmanager-webhook': alertmanagerWebhook,
  'jira-webhook': jiraWebhook,
  'slack-incoming-webhook': slackIncomingWebhook,
} satisfies Partial<HandlerMap>;

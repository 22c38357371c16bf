// The Grafana integration: the alerts of Grafana's webhook contact point,
// one message per alert, firing or resolved, in a topic named `[alertname]`
// as Zulip's Grafana integration does; and the alerts of Grafana's legacy
// alerting (before Grafana 8), in a topic named after the alert's title.
import { details, globalTime, paragraphs, type IntegrationMessage } from './integrations';
import type { PayloadValue } from './payload';

/** The sending client of the integration's messages, as Zulip names it. */
export const GRAFANA_CLIENT = 'ZulipGrafanaWebhook';

/** The end time of an alert that has not ended. */
const NOT_ENDED = '0001-01-01T00:00:00Z';

/** `name=value` pairs of a map of labels or values, comma-separated. */
function pairs(map: PayloadValue | undefined): string | undefined {
  const entries = map?.entries() ?? [];
  const text = entries
    .map(([key, value]) => `${key}=${typeof value.value === 'number' ? value.num() : value.str()}`)
    .join(', ');
  return text || undefined;
}

/** The message of one alert of Grafana's alerting. */
function alertMessage(alert: PayloadValue): IntegrationMessage {
  const status = alert.get('status').oneOf(['firing', 'resolved']);
  const labels = alert.get('labels');
  const name = labels.optText('alertname');
  const annotations = alert.opt('annotations');
  const ended = alert.optText('endsAt');
  const links = [
    ['Source', alert.optText('generatorURL')],
    ['Dashboard', alert.optText('dashboardURL')],
    ['Panel', alert.optText('panelURL')],
    ['Silence', alert.optText('silenceURL')],
  ]
    .filter(([, url]) => url)
    .map(([text, url]) => `[${text}](${url})`)
    .join(' · ');
  const content = paragraphs(
    status === 'firing'
      ? `:alert: **Firing**${name ? `: ${name}` : ''}`
      : `:check: **Resolved**${name ? `: ${name}` : ''}`,
    annotations?.optText('summary'),
    annotations?.optText('description'),
    details([
      ['Started', alert.optText('startsAt') && globalTime(alert.text('startsAt'))],
      ['Ended', ended && ended !== NOT_ENDED ? globalTime(ended) : undefined],
      ['Labels', pairs(labels)],
      ['Values', alert.has('values') ? pairs(alert.get('values')) : alert.optText('valueString')],
    ]),
    links,
  );
  // Without a name, the alert's fingerprint tells alerts apart.
  return { topic: `[${name ?? alert.text('fingerprint')}]`, content, event: status };
}

/** How the states of legacy alerts are shown. */
const LEGACY_STATES: Record<string, string> = {
  alerting: ':alert: **Alerting**',
  ok: ':check: **OK**',
  no_data: ':grey_question: **No data**',
  paused: ':pause: **Paused**',
  pending: ':hourglass: **Pending**',
  unknown: ':grey_question: **Unknown**',
};

/** The message of an alert of Grafana's legacy alerting. */
function legacyMessage(payload: PayloadValue): IntegrationMessage {
  const state = payload.text('state');
  const shown = Object.hasOwn(LEGACY_STATES, state) ? LEGACY_STATES[state] : `**${state}**`;
  const matches = (payload.opt('evalMatches')?.list() ?? []).map((match) => {
    const value = match.opt('value');
    return `* **${match.text('metric')}**: ${value ? value.num() : 'no value'}`;
  });
  const image = payload.optText('imageUrl');
  const content = paragraphs(
    `${shown}: [${payload.text('ruleName')}](${payload.text('ruleUrl')})`,
    payload.optText('message'),
    matches.join('\n'),
    image && `[Graph](${image})`,
  );
  return { topic: payload.text('title'), content, event: state };
}

/** The messages a Grafana payload makes: one per alert. */
export function grafanaMessages(payload: PayloadValue): IntegrationMessage[] {
  if (payload.has('alerts')) return payload.get('alerts').list().map(alertMessage);
  return [legacyMessage(payload)];
}

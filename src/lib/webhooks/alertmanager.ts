// The Prometheus Alertmanager integration: the alerts of one notification,
// grouped as Zulip's Alertmanager integration groups them: one topic per
// value of the label the URL's `name` names (`instance` by default), one
// message per topic and status (firing, resolved), each alert described by
// the label or annotation the URL's `desc` names (`alertname` by default).
import type { IntegrationMessage } from './integrations';
import type { PayloadValue } from './payload';

/** The sending client of the integration's messages, as Zulip names it. */
export const ALERTMANAGER_CLIENT = 'ZulipAlertmanagerWebhook';

/** What the URL of the integration asks for. */
export interface AlertmanagerOptions {
  /** The label (or annotation) whose value names an alert's topic. */
  name: string;
  /** The label (or annotation) whose value describes an alert. */
  desc: string;
}

/** The value of `field` among an alert's labels, else its annotations. */
function fieldOf(alert: PayloadValue, field: string): string | undefined {
  return alert.opt('labels')?.optText(field) ?? alert.opt('annotations')?.optText(field);
}

/** The messages an Alertmanager notification makes. */
export function alertmanagerMessages(
  payload: PayloadValue,
  options: AlertmanagerOptions,
): IntegrationMessage[] {
  // Topic, then status, then the alerts' lines, in the order they came.
  const byTopic = new Map<string, Map<'firing' | 'resolved', string[]>>();
  for (const alert of payload.get('alerts').list()) {
    const status = alert.get('status').oneOf(['firing', 'resolved']);
    const topic = fieldOf(alert, options.name) ?? '(unknown)';
    const desc = fieldOf(alert, options.desc) ?? `<missing field: ${options.desc}>`;
    // Prometheus's link opens its console tab; the graph tab is the one to see.
    const url = alert.optText('generatorURL')?.replace('tab=1', 'tab=0');
    const line = url ? `${desc} ([graph](${url}))` : desc;
    const statuses = byTopic.get(topic) ?? new Map<'firing' | 'resolved', string[]>();
    byTopic.set(topic, statuses);
    statuses.set(status, [...(statuses.get(status) ?? []), line]);
  }
  const messages: IntegrationMessage[] = [];
  for (const [topic, statuses] of byTopic)
    for (const [status, lines] of statuses) {
      const head = status === 'firing' ? ':alert: **Firing**' : ':check: **Resolved**';
      const content =
        lines.length === 1
          ? `${head}: ${lines[0]}`
          : `${head}:\n${lines.map((line) => `* ${line}`).join('\n')}`;
      messages.push({ topic, content, event: status });
    }
  return messages;
}

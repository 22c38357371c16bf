// The Sentry integration: the alerts of Sentry's issue alert rules (an
// `event_alert`, or the older plugin webhook) and the changes of issues
// (created, resolved, assigned, ignored), each in a topic named after the
// issue's title, as Zulip's Sentry integration does.
import {
  anomalousPayload,
  details,
  globalTime,
  paragraphs,
  headerOf,
  unsupportedEvent,
  type IntegrationMessage,
  type RequestHeaders,
} from './integrations';
import type { PayloadValue } from './payload';

/** The sending client of the integration's messages, as Zulip names it. */
export const SENTRY_CLIENT = 'ZulipSentryWebhook';

/** The header in which Sentry names the kind of resource a payload is about. */
const RESOURCE_HEADER = 'Sentry-Hook-Resource';

/** Lines of source shown around the line that raised. */
const CONTEXT_LINES = 3;

/**
 * The frame that raised, as a code block: the last frame of the first
 * exception with a stack trace, when Sentry sent its source lines.
 */
function raisingFrame(event: PayloadValue): string | undefined {
  const values = event.opt('exception')?.opt('values')?.list() ?? [];
  const trace = values.find((value) => value.has('stacktrace'))?.get('stacktrace');
  const frames = trace?.opt('frames')?.list() ?? [];
  const frame = frames.filter((f) => f.opt('in_app')?.bool() !== false).pop() ?? frames.pop();
  const line = frame?.optText('context_line');
  if (!frame || line === undefined) return undefined;
  const before = (frame.opt('pre_context')?.list() ?? []).map((l) => l.str()).slice(-CONTEXT_LINES);
  const after = (frame.opt('post_context')?.list() ?? [])
    .map((l) => l.str())
    .slice(0, CONTEXT_LINES);
  const where = [frame.optText('filename'), frame.opt('lineno')?.int()].filter(Boolean).join(':');
  const code = [...before.map((l) => `    ${l}`), `--> ${line}`, ...after.map((l) => `    ${l}`)];
  const fence = code.some((l) => l.includes('```')) ? '~~~~' : '```';
  return `${where ? `In \`${where}\`:\n` : ''}${fence}\n${code.join('\n')}\n${fence}`;
}

/** The message of an alert rule that fired for an event. */
function eventAlertMessage(event: PayloadValue, rule: string | undefined): IntegrationMessage {
  const title = event.text('title');
  const level = event.optText('level') ?? 'error';
  const url = event.optText('web_url') ?? event.optText('issue_url');
  const seen = event.optText('datetime');
  const content = paragraphs(
    `:alert: **New ${level} event**: ${url ? `[${title}](${url})` : title}`,
    details([
      ['Culprit', event.optText('culprit')],
      ['Environment', event.optText('environment')],
      ['Seen', seen && globalTime(seen)],
      ['Alert rule', rule],
    ]),
    raisingFrame(event),
  );
  return { topic: title, content, event: 'event_alert' };
}

/** The message of a change of an issue. */
function issueMessage(action: string, issue: PayloadValue, actor: string): IntegrationMessage {
  const title = issue.text('title');
  const url = issue.optText('web_url') ?? issue.optText('permalink');
  const named = url ? `[${title}](${url})` : `**${title}**`;
  const assigned = issue.opt('assignedTo');
  const assignee = assigned
    ? `${assigned.optText('type') === 'team' ? 'team ' : ''}${assigned.text('name')}`
    : undefined;
  let content: string;
  switch (action) {
    case 'created': {
      const project = issue.opt('project')?.optText('name');
      content = `New issue ${named}${project ? ` in ${project}` : ''} (level: ${issue.optText('level') ?? 'error'}).`;
      if (assignee) content += ` Assigned to ${assignee}.`;
      break;
    }
    case 'resolved':
      content = `${actor} resolved the issue ${named}.`;
      break;
    case 'unresolved':
      content = `The issue ${named} is unresolved again.`;
      break;
    case 'assigned':
      content = `${actor} assigned the issue ${named} to ${assignee ?? 'no one'}.`;
      break;
    case 'ignored':
    case 'archived':
      content = `${actor} ${action} the issue ${named}.`;
      break;
    default:
      throw unsupportedEvent('Sentry', `issue:${action}`);
  }
  return { topic: title, content, event: `issue_${action}` };
}

/** The message of Sentry's older plugin webhook, whose alerts carry the project's name. */
function pluginAlertMessage(payload: PayloadValue): IntegrationMessage {
  const title = payload.opt('event')?.optText('title') ?? payload.text('message');
  const level = payload.optText('level') ?? 'error';
  const rules = (payload.opt('triggering_rules')?.list() ?? []).map((rule) => rule.str());
  const content = paragraphs(
    `:alert: **New ${level} event** in ${payload.text('project_name')}: [${title}](${payload.text('url')})`,
    details([
      ['Culprit', payload.optText('culprit')],
      ['Alert rule', rules.join(', ')],
    ]),
  );
  return { topic: title, content, event: 'event_alert' };
}

/** The messages a Sentry payload makes; refused for resources not handled. */
export function sentryMessages(
  payload: PayloadValue,
  headers: RequestHeaders,
): IntegrationMessage[] {
  const resource = headerOf(headers, RESOURCE_HEADER);
  const data = payload.opt('data');
  if (data?.has('event'))
    return [eventAlertMessage(data.get('event'), data.optText('triggered_rule'))];
  if (data?.has('issue')) {
    const actor = payload.opt('actor')?.optText('name') ?? 'Sentry';
    return [issueMessage(payload.text('action'), data.get('issue'), actor)];
  }
  if (data) {
    // Sentry names the resource in a header; its data's first member names it too.
    const kind = resource ?? data.entries()[0]?.[0] ?? 'empty data';
    throw unsupportedEvent('Sentry', kind);
  }
  if (payload.has('project_name') && payload.has('url')) return [pluginAlertMessage(payload)];
  if (resource) throw unsupportedEvent('Sentry', resource);
  throw anomalousPayload('Sentry');
}

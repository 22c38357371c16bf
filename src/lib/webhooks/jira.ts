// The Jira integration: issues created, updated (fields changed, comments),
// deleted, and comments created, edited and deleted, each in a topic named
// `KEY-12: summary` as Zulip's Jira integration does. Jira's own markup in
// comments is turned into Markdown where it is simple to.
import {
  anomalousPayload,
  details,
  paragraphs,
  quote,
  unsupportedEvent,
  type IntegrationMessage,
} from './integrations';
import type { PayloadValue } from './payload';

/** The sending client of the integration's messages, as Zulip names it. */
export const JIRA_CLIENT = 'ZulipJiraWebhook';

/** Events Jira sends that are known but not posted, as in Zulip. */
const QUIET_EVENTS = new Set([
  'attachment_created',
  'attachment_deleted',
  'issuelink_created',
  'issuelink_deleted',
  'jira:version_released',
  'jira:worklog_updated',
  'sprint_closed',
  'sprint_started',
  'worklog_created',
  'worklog_updated',
  'worklog_deleted',
]);

/** Jira's wiki markup, the common parts, as Markdown. */
export function jiraMarkupToMarkdown(text: string): string {
  return text
    .replace(
      /\{code(?::[^}]*)?\}([\s\S]*?)\{code\}/g,
      (_, code: string) => `\`\`\`\n${code.trim()}\n\`\`\``,
    )
    .replace(
      /\{noformat\}([\s\S]*?)\{noformat\}/g,
      (_, code: string) => `\`\`\`\n${code.trim()}\n\`\`\``,
    )
    .replace(/\{quote\}([\s\S]*?)\{quote\}/g, (_, inner: string) => quote(inner))
    .replace(/^bq\. (.*)$/gm, '> $1')
    .replace(/\{\{([^}]+?)\}\}/g, '`$1`')
    .replace(/(^|[\s(])\*(\S[^*\n]*?)\*(?=$|[\s).,:;!?])/gm, '$1**$2**')
    .replace(/\[([^|\]\n]+)\|([^\]\s]+)\]/g, '[$1]($2)')
    .replace(/\[~([^\]\n]+)\]/g, '**$1**');
}

/** What every message of an issue names. */
interface Issue {
  key: string;
  summary: string;
  /** `[KEY-12: summary](url)`, or the bare text when the payload gives no address. */
  link: string;
}

/** The issue of a payload; its page is found from its REST address, as the payload gives no other. */
function issueOf(payload: PayloadValue): Issue {
  const issue = payload.get('issue');
  const key = issue.text('key');
  const summary = issue.get('fields').text('summary');
  const base = /^(.*)\/rest\/api\/.*$/.exec(issue.optText('self') ?? '')?.[1];
  const text = `${key}: ${summary}`;
  return { key, summary, link: base ? `[${text}](${base}/browse/${key})` : text };
}

/** Who acted: the payload's user, else the comment's author. */
function actorOf(payload: PayloadValue): string {
  return (
    payload.opt('user')?.optText('displayName') ??
    payload.opt('comment')?.opt('author')?.optText('displayName') ??
    'Someone'
  );
}

function createdMessage(payload: PayloadValue, issue: Issue): string {
  const fields = payload.get('issue').get('fields');
  return paragraphs(
    `${actorOf(payload)} created ${issue.link}:`,
    details([
      ['Type', fields.opt('issuetype')?.optText('name')],
      ['Priority', fields.opt('priority')?.optText('name')],
      ['Assignee', fields.opt('assignee')?.optText('displayName') ?? 'no one'],
    ]),
    fields.optText('description') && quote(jiraMarkupToMarkdown(fields.text('description'))),
  );
}

/** A comment's message, for the comment events and the issue updates that are about a comment. */
function commentMessage(payload: PayloadValue, issue: Issue, kind: string): string {
  const comment = payload.get('comment');
  const author = comment.opt('author')?.optText('displayName') ?? actorOf(payload);
  const body = comment.optText('body');
  const verb =
    kind === 'created'
      ? 'commented on'
      : kind === 'updated'
        ? 'edited a comment on'
        : 'deleted a comment on';
  const head = `${author} ${verb} ${issue.link}`;
  return kind !== 'deleted' && body
    ? `${head}:\n\n${quote(jiraMarkupToMarkdown(body))}`
    : `${head}.`;
}

function updatedMessage(payload: PayloadValue, issue: Issue): string {
  const sub = payload.optText('issue_event_type_name');
  if (payload.has('comment')) {
    const kind =
      sub === 'issue_comment_edited'
        ? 'updated'
        : sub === 'issue_comment_deleted'
          ? 'deleted'
          : 'created';
    return commentMessage(payload, issue, kind);
  }
  const changes = (payload.opt('changelog')?.opt('items')?.list() ?? []).map((item) => {
    const field = item.text('field');
    const from = item.optText('fromString');
    const to = item.optText('toString');
    return `* ${field}: ${from ? `~~${from}~~ → ` : ''}${to ? `**${to}**` : '(none)'}`;
  });
  const head = `${actorOf(payload)} updated ${issue.link}`;
  return changes.length ? `${head}:\n\n${changes.join('\n')}` : `${head}.`;
}

/**
 * The message a Jira event makes: none for events known but not posted;
 * refused for events not handled, and for a payload that names no event.
 */
export function jiraMessages(payload: PayloadValue): IntegrationMessage[] {
  const event = payload.optText('webhookEvent');
  if (event === undefined) throw anomalousPayload('Jira');
  if (QUIET_EVENTS.has(event)) return [];
  let build: (issue: Issue) => string;
  switch (event) {
    case 'jira:issue_created':
      build = (issue) => createdMessage(payload, issue);
      break;
    case 'jira:issue_updated':
      build = (issue) => updatedMessage(payload, issue);
      break;
    case 'jira:issue_deleted':
      build = (issue) => `${actorOf(payload)} deleted ${issue.link}.`;
      break;
    case 'comment_created':
    case 'comment_updated':
    case 'comment_deleted':
      build = (issue) => commentMessage(payload, issue, event.slice('comment_'.length));
      break;
    default:
      throw unsupportedEvent('Jira', event);
  }
  const issue = issueOf(payload);
  return [{ topic: `${issue.key}: ${issue.summary}`, content: build(issue), event }];
}

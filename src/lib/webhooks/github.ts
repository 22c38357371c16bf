// The GitHub integration: GitHub's webhook events (named by the
// X-GitHub-Event header) turned into messages, with the topics Zulip's
// GitHub integration uses: `repo / branch` for pushes, `repo / PR #1 title`
// and `repo / issue #1 title` for pull requests, issues and their comments,
// the repository's name otherwise.
import {
  branchWanted,
  headerOf,
  missingEventHeader,
  quote,
  unsupportedEvent,
  type IntegrationMessage,
  type RequestHeaders,
} from './integrations';
import type { PayloadValue } from './payload';

/** The sending client of the integration's messages, as Zulip names it. */
export const GITHUB_CLIENT = 'ZulipGitHubWebhook';

/** The header naming the event. */
export const GITHUB_EVENT_HEADER = 'X-GitHub-Event';

/** How many commits of a push the message lists. */
const COMMITS_LISTED = 20;

/** What the URL of the integration asks for. */
export interface GitHubOptions {
  /** Comma-separated branches whose pushes are posted; all when undefined. */
  branches?: string;
  /** Whether events of private repositories are dropped. */
  ignorePrivateRepositories: boolean;
  /** Whether the URL fixes the topic, so that messages name the pull request's or issue's title. */
  includeTitle: boolean;
}

/** Pull request actions that are known but not posted, as in Zulip. */
const QUIET_PULL_REQUEST_ACTIONS = new Set([
  'labeled',
  'unlabeled',
  'converted_to_draft',
  'review_request_removed',
  'auto_merge_enabled',
  'auto_merge_disabled',
  'milestoned',
  'demilestoned',
  'locked',
  'unlocked',
  'enqueued',
  'dequeued',
]);

/** Everything one handler needs to know of the payload and the URL. */
interface Context {
  payload: PayloadValue;
  options: GitHubOptions;
  sender: string;
  repo: string;
}

/** The first seven characters of a commit's SHA. */
function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** A link to a pull request or issue: `[PR #4](url)`, with its title when the URL fixes the topic. */
function itemLink(kind: string, number: number, title: string, url: string, withTitle: boolean) {
  return `[${kind} #${number}${withTitle ? ` ${title}` : ''}](${url})`;
}

/** `repo / PR #4 title` or `repo / issue #4 title`. */
function itemTopic(repo: string, kind: string, number: number, title: string): string {
  return `${repo} / ${kind} #${number} ${title}`;
}

function pushMessage(c: Context): IntegrationMessage[] {
  const { payload, sender, repo } = c;
  const ref = payload.text('ref');
  if (ref.startsWith('refs/tags/')) {
    const tag = ref.slice('refs/tags/'.length);
    const verb = payload.get('deleted').bool() ? 'deleted' : 'pushed';
    return [{ topic: repo, content: `${sender} ${verb} tag ${tag}.`, event: 'push_tags' }];
  }
  const branch = ref.replace(/^refs\/heads\//, '');
  // Pushes of GitHub's merge queue are its own bookkeeping.
  if (branch.startsWith('gh-readonly-queue/') || !branchWanted(branch, c.options.branches))
    return [];
  const topic = `${repo} / ${branch}`;
  if (payload.get('deleted').bool())
    return [{ topic, content: `${sender} deleted branch ${branch}.`, event: 'push_commits' }];
  const commits = payload.get('commits').list();
  const lines = commits.slice(0, COMMITS_LISTED).map((commit) => {
    const message = commit.text('message').split('\n')[0];
    const sha = commit.text('id');
    return `* ${message} ([${shortSha(sha)}](${commit.text('url')}))`;
  });
  if (commits.length > COMMITS_LISTED)
    lines.push(`* ... and ${commits.length - COMMITS_LISTED} more`);
  const compare = payload.text('compare');
  const forced = payload.get('forced').bool();
  const count = `${commits.length} commit${commits.length === 1 ? '' : 's'}`;
  const head =
    commits.length === 0
      ? `${sender} ${payload.get('created').bool() ? 'created' : 'pushed to'} branch [${branch}](${compare}).`
      : `${sender} ${forced ? 'force-pushed' : 'pushed'} [${count}](${compare}) to branch ${branch}.`;
  const content = lines.length ? `${head}\n\n${lines.join('\n')}` : head;
  return [{ topic, content, event: 'push_commits' }];
}

function pullRequestMessage(c: Context): IntegrationMessage[] {
  const { payload, sender, repo, options } = c;
  const action = payload.text('action');
  const pr = payload.get('pull_request');
  const number = pr.get('number').int();
  const title = pr.text('title');
  const link = itemLink('PR', number, title, pr.text('html_url'), options.includeTitle);
  const message = (event: string, content: string): IntegrationMessage[] => [
    { topic: itemTopic(repo, 'PR', number, title), content, event },
  ];
  switch (action) {
    case 'opened':
    case 'reopened': {
      const branches = `from \`${pr.get('head').text('label')}\` to \`${pr.get('base').text('label')}\``;
      const body = pr.optText('body');
      const head = `${sender} ${action} ${link} ${branches}`;
      return message('opened_pull_request', body ? `${head}:\n\n${quote(body)}` : `${head}.`);
    }
    case 'edited':
    case 'synchronize': {
      const changes = payload.opt('changes');
      const body = changes?.has('body') ? pr.optText('body') : undefined;
      const head =
        action === 'edited'
          ? `${sender} edited ${link}`
          : `${sender} pushed new commits to ${link}`;
      return message('updated_pull_request', body ? `${head}:\n\n${quote(body)}` : `${head}.`);
    }
    case 'closed': {
      const verb = pr.get('merged').bool() ? 'merged' : 'closed without merge';
      return message('closed_pull_request', `${sender} ${verb} ${link}.`);
    }
    case 'assigned':
    case 'unassigned': {
      const assignee = payload.get('assignee').text('login');
      const content =
        action === 'assigned'
          ? `${sender} assigned ${assignee} to ${link}.`
          : `${sender} unassigned ${assignee} from ${link}.`;
      return message('assigned_or_unassigned_pull_request', content);
    }
    case 'review_requested': {
      const reviewer = payload.opt('requested_reviewer');
      const who = reviewer
        ? `[${reviewer.text('login')}](${reviewer.text('html_url')})`
        : `the team [${payload.get('requested_team').text('name')}](${payload.get('requested_team').text('html_url')})`;
      return message('pull_request_review_requested', `${sender} asked ${who} to review ${link}.`);
    }
    case 'ready_for_review':
      return message(
        'pull_request_ready_for_review',
        `${sender} marked ${link} as ready for review.`,
      );
    default:
      if (QUIET_PULL_REQUEST_ACTIONS.has(action)) return [];
      throw unsupportedEvent('GitHub', `pull_request:${action}`);
  }
}

function issuesMessage(c: Context): IntegrationMessage[] {
  const { payload, sender, repo, options } = c;
  const action = payload.text('action');
  const issue = payload.get('issue');
  const number = issue.get('number').int();
  const title = issue.text('title');
  const link = itemLink('issue', number, title, issue.text('html_url'), options.includeTitle);
  let content: string;
  switch (action) {
    case 'opened': {
      const body = issue.optText('body');
      content = body ? `${sender} opened ${link}:\n\n${quote(body)}` : `${sender} opened ${link}.`;
      break;
    }
    case 'assigned':
    case 'unassigned': {
      const assignee = payload.get('assignee').text('login');
      content =
        action === 'assigned'
          ? `${sender} assigned ${assignee} to ${link}.`
          : `${sender} unassigned ${assignee} from ${link}.`;
      break;
    }
    case 'labeled':
    case 'unlabeled': {
      const label = payload.get('label').text('name');
      content =
        action === 'labeled'
          ? `${sender} added the label **${label}** to ${link}.`
          : `${sender} removed the label **${label}** from ${link}.`;
      break;
    }
    default:
      content = `${sender} ${action.replace(/_/g, ' ')} ${link}.`;
  }
  return [{ topic: itemTopic(repo, 'issue', number, title), content, event: 'issues' }];
}

function issueCommentMessage(c: Context): IntegrationMessage[] {
  const { payload, sender, repo, options } = c;
  const action = payload.text('action');
  const comment = payload.get('comment');
  const body = comment.text('body');
  // An edit that leaves the text as it was says nothing new.
  if (action === 'edited' && payload.opt('changes')?.opt('body')?.opt('from')?.str() === body)
    return [];
  const issue = payload.get('issue');
  const kind = issue.has('pull_request') ? 'PR' : 'issue';
  const number = issue.get('number').int();
  const title = issue.text('title');
  const link = itemLink(kind, number, title, issue.text('html_url'), options.includeTitle);
  const url = comment.text('html_url');
  const verb =
    action === 'created'
      ? `[commented](${url}) on`
      : action === 'edited'
        ? `edited [a comment](${url}) on`
        : action === 'deleted'
          ? `deleted [a comment](${url}) on`
          : undefined;
  if (verb === undefined) throw unsupportedEvent('GitHub', `issue_comment:${action}`);
  const head = `${sender} ${verb} ${link}`;
  return [
    {
      topic: itemTopic(repo, kind, number, title),
      content: action === 'deleted' || !body.trim() ? `${head}.` : `${head}:\n\n${quote(body)}`,
      event: 'issue_comment',
    },
  ];
}

function releaseMessage(c: Context): IntegrationMessage[] {
  const { payload, sender, repo } = c;
  const action = payload.text('action');
  const release = payload.get('release');
  const tag = release.text('tag_name');
  const name = release.optText('name') ?? tag;
  const verb = action === 'released' ? 'released' : action.replace(/_/g, ' ');
  return [
    {
      topic: repo,
      content: `${sender} ${verb} release [${name}](${release.text('html_url')}) for tag ${tag}.`,
      event: 'release',
    },
  ];
}

/** How a finished run is shown: an emoji and the word for its conclusion. */
const CONCLUSIONS: Record<string, string> = {
  success: ':check: succeeded',
  failure: ':cross_mark: failed',
  cancelled: ':stop_sign: was cancelled',
  timed_out: ':hourglass: timed out',
  action_required: ':warning: needs action',
  skipped: 'was skipped',
  neutral: 'finished',
  stale: 'went stale',
};

function workflowRunMessage(c: Context): IntegrationMessage[] {
  const { payload, repo } = c;
  const action = payload.text('action');
  // Runs are posted once, when they finish.
  if (action === 'requested' || action === 'in_progress') return [];
  if (action !== 'completed') throw unsupportedEvent('GitHub', `workflow_run:${action}`);
  const run = payload.get('workflow_run');
  const name = run.text('name');
  const conclusion = run.text('conclusion');
  const outcome = Object.hasOwn(CONCLUSIONS, conclusion)
    ? CONCLUSIONS[conclusion]
    : `finished: ${conclusion}`;
  const sha = run.text('head_sha');
  const commit = `[${shortSha(sha)}](${payload.get('repository').text('html_url')}/commit/${sha})`;
  const content =
    `Workflow [${name} #${run.get('run_number').int()}](${run.text('html_url')}) ${outcome}` +
    ` on branch ${run.text('head_branch')} (${run.text('event')}, ${commit}).`;
  return [{ topic: `${repo} / ${name}`, content, event: 'workflow_run' }];
}

function pingMessage(c: Context): IntegrationMessage[] {
  const { payload, sender } = c;
  const topic = payload.has('repository') ? c.repo : payload.get('organization').text('login');
  return [
    {
      topic,
      content: `GitHub webhook has been successfully configured by ${sender}.`,
      event: 'ping',
    },
  ];
}

const handlers: Record<string, (c: Context) => IntegrationMessage[]> = {
  push: pushMessage,
  pull_request: pullRequestMessage,
  issues: issuesMessage,
  issue_comment: issueCommentMessage,
  release: releaseMessage,
  workflow_run: workflowRunMessage,
  ping: pingMessage,
};

/** The event names `only_events` and `exclude_events` match. */
export const GITHUB_EVENTS = [
  'push_commits',
  'push_tags',
  'opened_pull_request',
  'updated_pull_request',
  'closed_pull_request',
  'assigned_or_unassigned_pull_request',
  'pull_request_review_requested',
  'pull_request_ready_for_review',
  'issues',
  'issue_comment',
  'release',
  'workflow_run',
  'ping',
];

/**
 * The messages a GitHub event makes: none for events known but not posted
 * (and pushes to branches the URL does not list); refused for events not
 * handled, and for a request without the event header.
 */
export function githubMessages(
  payload: PayloadValue,
  headers: RequestHeaders,
  options: GitHubOptions,
): IntegrationMessage[] {
  const event = headerOf(headers, GITHUB_EVENT_HEADER);
  if (event === undefined) throw missingEventHeader(GITHUB_EVENT_HEADER);
  const handler = Object.hasOwn(handlers, event) ? handlers[event] : undefined;
  if (!handler) {
    const action = payload.opt('action')?.str();
    throw unsupportedEvent('GitHub', action ? `${event}:${action}` : event);
  }
  const repository = payload.opt('repository');
  if (repository && options.ignorePrivateRepositories && repository.get('private').bool())
    return [];
  // Only an organization's ping comes without a repository.
  const repo = event === 'ping' && !repository ? '' : payload.get('repository').text('name');
  return handler({ payload, options, sender: payload.get('sender').text('login'), repo });
}

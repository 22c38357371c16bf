// The GitLab integration: GitLab's webhook events (named by the
// X-Gitlab-Event header, with the action of issues and merge requests and the
// kind of object a comment is on) turned into messages, with the topics
// Zulip's GitLab integration uses: `project / branch` for pushes and
// pipelines, `project / MR #1 title` and `project / issue #1 title` for merge
// requests, issues and their comments, the project's name otherwise.
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
export const GITLAB_CLIENT = 'ZulipGitlabWebhook';

/** The header naming the event. */
export const GITLAB_EVENT_HEADER = 'X-Gitlab-Event';

/** The SHA GitLab gives as `after` when a branch is deleted. */
const NO_COMMIT = '0000000000000000000000000000000000000000';

/** How many commits of a push the message lists. */
const COMMITS_LISTED = 20;

/** What the URL of the integration asks for. */
export interface GitLabOptions {
  /** Comma-separated branches whose pushes are posted; all when undefined. */
  branches?: string;
  /** Whether the URL fixes the topic, so that messages name the merge request's or issue's title. */
  includeTitle: boolean;
}

interface Context {
  payload: PayloadValue;
  options: GitLabOptions;
  /** The event as `only_events` matches it (`Issue Hook open`). */
  event: string;
  project: string;
}

function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

function link(kind: string, id: number, title: string, url: string, withTitle: boolean): string {
  return `[${kind} #${id}${withTitle ? ` ${title}` : ''}](${url})`;
}

/** `text` without the HTML comments of GitLab's description templates. */
function withoutComments(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, '').trim();
}

/** The name of the user who acted, for the events that carry a `user` object. */
function actor(payload: PayloadValue): string {
  return payload.get('user').text('name');
}

function pushMessage(c: Context): IntegrationMessage[] {
  const { payload, project } = c;
  const branch = payload.text('ref').replace(/^refs\/heads\//, '');
  if (!branchWanted(branch, c.options.branches)) return [];
  const user = payload.text('user_name');
  const topic = `${project} / ${branch}`;
  if (payload.text('after') === NO_COMMIT)
    return [{ topic, content: `${user} deleted branch ${branch}.`, event: c.event }];
  const commits = payload.get('commits').list();
  const total = payload.opt('total_commits_count')?.int() ?? commits.length;
  const web = payload.get('project').text('web_url');
  const compare = `${web}/-/compare/${payload.text('before')}...${payload.text('after')}`;
  const lines = commits.slice(0, COMMITS_LISTED).map((commit) => {
    const message = commit.text('message').split('\n')[0];
    return `* ${message} ([${shortSha(commit.text('id'))}](${commit.text('url')}))`;
  });
  if (total > lines.length) lines.push(`* ... and ${total - lines.length} more`);
  const count = `${total} commit${total === 1 ? '' : 's'}`;
  const head = `${user} pushed [${count}](${compare}) to branch ${branch}.`;
  return [
    { topic, content: lines.length ? `${head}\n\n${lines.join('\n')}` : head, event: c.event },
  ];
}

function tagPushMessage(c: Context): IntegrationMessage[] {
  const { payload } = c;
  const tag = payload.text('ref').replace(/^refs\/tags\//, '');
  const verb = payload.has('checkout_sha') ? 'pushed' : 'deleted';
  return [
    {
      topic: c.project,
      content: `${payload.text('user_name')} ${verb} tag ${tag}.`,
      event: c.event,
    },
  ];
}

/** The words of a merge request's or issue's action. */
const ACTIONS: Record<string, string> = {
  open: 'opened',
  close: 'closed',
  reopen: 'reopened',
  update: 'updated',
  merge: 'merged',
  approved: 'approved',
  unapproved: 'removed the approval of',
  approval: 'approved',
  unapproval: 'removed the approval of',
};

function mergeRequestMessage(c: Context, action: string): IntegrationMessage[] {
  const { payload, project, options } = c;
  const mr = payload.get('object_attributes');
  const iid = mr.get('iid').int();
  const title = mr.text('title');
  const ref = link('MR', iid, title, mr.text('url'), options.includeTitle);
  let content = `${actor(payload)} ${ACTIONS[action]} ${ref}`;
  if (action === 'open') {
    content += ` from \`${mr.text('source_branch')}\` to \`${mr.text('target_branch')}\``;
    const description = withoutComments(mr.optText('description') ?? '');
    content = description ? `${content}:\n\n${quote(description)}` : `${content}.`;
  } else if (action === 'update' && mr.has('oldrev')) {
    content = `${actor(payload)} pushed new commits to ${ref}.`;
  } else content += '.';
  return [{ topic: `${project} / MR #${iid} ${title}`, content, event: c.event }];
}

function issueMessage(c: Context, action: string): IntegrationMessage[] {
  const { payload, project, options } = c;
  const issue = payload.get('object_attributes');
  const iid = issue.get('iid').int();
  const title = issue.text('title');
  const ref = link('issue', iid, title, issue.text('url'), options.includeTitle);
  let content = `${actor(payload)} ${ACTIONS[action]} ${ref}`;
  const description = action === 'open' ? withoutComments(issue.optText('description') ?? '') : '';
  content = description ? `${content}:\n\n${quote(description)}` : `${content}.`;
  return [{ topic: `${project} / issue #${iid} ${title}`, content, event: c.event }];
}

function noteMessage(c: Context, noteable: string): IntegrationMessage[] {
  const { payload, project, options } = c;
  const note = payload.get('object_attributes');
  const commented = `${actor(payload)} [commented](${note.text('url')}) on`;
  const text = note.text('note');
  const body = (head: string) => (text.trim() ? `${head}:\n\n${quote(text)}` : `${head}.`);
  const web = payload.get('project').text('web_url');
  if (noteable === 'Commit') {
    const commit = payload.get('commit');
    const sha = commit.text('id');
    return [
      {
        topic: project,
        content: body(`${commented} commit [${shortSha(sha)}](${commit.text('url')})`),
        event: c.event,
      },
    ];
  }
  const [field, kind, path] =
    noteable === 'MergeRequest'
      ? ['merge_request', 'MR', 'merge_requests']
      : noteable === 'Issue'
        ? ['issue', 'issue', 'issues']
        : ['snippet', 'snippet', 'snippets'];
  const item = payload.get(field);
  const id = noteable === 'Snippet' ? item.get('id').int() : item.get('iid').int();
  const title = item.text('title');
  const ref = link(kind, id, title, `${web}/-/${path}/${id}`, options.includeTitle);
  return [
    {
      topic: `${project} / ${kind} #${id} ${title}`,
      content: body(`${commented} ${ref}`),
      event: c.event,
    },
  ];
}

/** How a pipeline's status is told. */
const PIPELINE_STATUSES: Record<string, string> = {
  pending: 'is pending',
  created: 'was created',
  running: 'started',
  success: ':check: succeeded',
  failed: ':cross_mark: failed',
  canceled: ':stop_sign: was canceled',
  skipped: 'was skipped',
  manual: 'is waiting for a manual action',
};

function pipelineMessage(c: Context): IntegrationMessage[] {
  const { payload, project } = c;
  const pipeline = payload.get('object_attributes');
  const id = pipeline.get('id').int();
  const status = pipeline.text('status');
  const branch = pipeline.text('ref').replace(/^refs\/heads\//, '');
  const web = payload.get('project').text('web_url');
  const url = pipeline.optText('url') ?? `${web}/-/pipelines/${id}`;
  const told = Object.hasOwn(PIPELINE_STATUSES, status)
    ? PIPELINE_STATUSES[status]
    : `changed status to ${status}`;
  const builds = (payload.opt('builds')?.list() ?? []).map(
    (build) => `* ${build.text('stage')} / ${build.text('name')}: ${build.text('status')}`,
  );
  const head = `[Pipeline #${id}](${url}) ${told}`;
  const content = builds.length ? `${head}. Jobs:\n${builds.join('\n')}` : `${head}.`;
  return [{ topic: `${project} / ${branch}`, content, event: c.event }];
}

/**
 * The messages a GitLab event makes: none for pushes to branches the URL
 * does not list; refused for events not handled, and for a request without
 * the event header.
 */
export function gitlabMessages(
  payload: PayloadValue,
  headers: RequestHeaders,
  options: GitLabOptions,
): IntegrationMessage[] {
  const hook = headerOf(headers, GITLAB_EVENT_HEADER);
  if (hook === undefined) throw missingEventHeader(GITLAB_EVENT_HEADER);
  const project = () => payload.get('project').text('name');
  switch (hook) {
    case 'Push Hook':
      return pushMessage({ payload, options, event: hook, project: project() });
    case 'Tag Push Hook':
      return tagPushMessage({ payload, options, event: hook, project: project() });
    case 'Pipeline Hook':
      return pipelineMessage({ payload, options, event: hook, project: project() });
    case 'Merge Request Hook':
    case 'Issue Hook':
    case 'Confidential Issue Hook': {
      const action = payload.get('object_attributes').text('action');
      const event = `${hook} ${action}`;
      const issue = hook !== 'Merge Request Hook';
      if (
        !Object.hasOwn(ACTIONS, action) ||
        (issue && !['open', 'close', 'reopen', 'update'].includes(action))
      )
        throw unsupportedEvent('GitLab', event);
      const c = { payload, options, event, project: project() };
      return issue ? issueMessage(c, action) : mergeRequestMessage(c, action);
    }
    case 'Note Hook':
    case 'Confidential Note Hook': {
      const noteable = payload.get('object_attributes').text('noteable_type');
      const event = `${hook} ${noteable}`;
      if (!['Commit', 'MergeRequest', 'Issue', 'Snippet'].includes(noteable))
        throw unsupportedEvent('GitLab', event);
      return noteMessage({ payload, options, event, project: project() }, noteable);
    }
    default:
      throw unsupportedEvent('GitLab', hook);
  }
}

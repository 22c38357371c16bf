// What every integration shares: the messages it produces, its refusals
// (with Zulip's codes), and Zulip's generic filters of the webhook URL
// (`only_events`, `exclude_events`, `branches`).
import { ApiError } from '../../errors';

/** One message an integration posts for a payload. */
export interface IntegrationMessage {
  /** The topic the integration picks; the URL's `topic` replaces it. */
  topic: string;
  content: string;
  /** The event's name as `only_events` and `exclude_events` match it. */
  event: string;
}

/** The headers of a request, as Node gives them (lower-case names). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** 400 UNSUPPORTED_WEBHOOK_EVENT_TYPE: an event the integration does not turn into a message. */
export function unsupportedEvent(webhook: string, event: string): ApiError {
  return new ApiError(
    `The '${event}' event isn't currently supported by the ${webhook} webhook; ignoring`,
    'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    400,
    { webhook_name: webhook, event_type: event },
  );
}

/** 400 MISSING_HTTP_EVENT_HEADER: the header that names the event was not sent. */
export function missingEventHeader(header: string): ApiError {
  return new ApiError(
    `Missing the HTTP event header '${header}'`,
    'MISSING_HTTP_EVENT_HEADER',
    400,
    { header },
  );
}

/** 400 ANOMALOUS_WEBHOOK_PAYLOAD: a payload that does not look like the service's at all. */
export function anomalousPayload(webhook: string): ApiError {
  return new ApiError(
    `Unable to parse request: Did ${webhook} generate this event?`,
    'ANOMALOUS_WEBHOOK_PAYLOAD',
    400,
    { webhook_name: webhook },
  );
}

/** The one value of header `name`, or undefined when it was not sent (or sent empty). */
export function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

/** Whether `text` matches a shell-style pattern (`*`, `?`, `[...]`), as Python's fnmatch does. */
export function matchesPattern(text: string, pattern: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[' && pattern.indexOf(']', i + 2) !== -1) {
      const end = pattern.indexOf(']', i + 2);
      let set = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (set.startsWith('!')) set = `^${set.slice(1)}`;
      source += `[${set}]`;
      i = end;
    } else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(text);
}

/**
 * Whether an event passes the URL's filters: it matches one of
 * `only_events` (when given) and none of `exclude_events`.
 */
export function eventWanted(event: string, only?: string[], exclude?: string[]): boolean {
  if (only && !only.some((pattern) => matchesPattern(event, pattern))) return false;
  return !(exclude ?? []).some((pattern) => matchesPattern(event, pattern));
}

/** Whether `branch` is one of the URL's `branches` (comma-separated); any branch without it. */
export function branchWanted(branch: string, branches: string | undefined): boolean {
  return (
    branches === undefined ||
    branches
      .split(',')
      .map((name) => name.trim())
      .includes(branch)
  );
}

/** `text` cut to `limit` characters, an ellipsis marking the cut. */
export function shorten(text: string, limit: number): string {
  const chars = [...text];
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join('')}…`;
}

/** `text` as a block quote, fenced by more tildes than it holds in a row. */
export function quote(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/~+/g)].map((m) => m[0].length));
  const fence = '~'.repeat(longest + 1);
  return `${fence} quote\n${text.trim()}\n${fence}`;
}

/**
 * A time of a payload as a global time (`<time:...>`), which each reader
 * sees in their own time zone; text that is not a time stays as it is.
 */
export function globalTime(text: string): string {
  const time = new Date(text);
  return Number.isNaN(time.getTime())
    ? text
    : `<time:${time.toISOString().replace(/\.\d{3}Z$/, 'Z')}>`;
}

/** A bulleted list of the details that have a value. */
export function details(pairs: [string, string | undefined][]): string {
  return pairs
    .filter(([, value]) => value)
    .map(([name, value]) => `* **${name}**: ${value}`)
    .join('\n');
}

/** Paragraphs, leaving out the empty ones. */
export function paragraphs(...parts: (string | undefined)[]): string {
  return parts.filter((part) => part).join('\n\n');
}

// A message's edit history: stored as JSON in Message.editHistory, newest
// first (as Zulip stores it), and shown by GET /messages/{id}/history as
// snapshots, oldest first, filtered by the organization's visibility policy.
import type { Message } from '../../../generated/prisma/sqlite/client';
import { badRequest } from '../../errors';
import { displayTopic } from '../channels/topics';
import type { components } from '../../../generated/api';

/** One stored edit: who and when, and the values before (and after) it. */
export interface EditEntry {
  /** Who made the edit. */
  user_id: number | null;
  /** When, in UNIX seconds. */
  timestamp: number;
  /** Content before a content edit, raw and rendered. */
  prev_content?: string;
  prev_rendered_content?: string;
  /** Topic before and after a topic edit. */
  prev_topic?: string;
  topic?: string;
  /** Channel IDs before and after a channel move. */
  prev_stream?: number;
  stream?: number;
}

/** The message_edit_history_visibility_policy values. */
export const HistoryPolicy = { ALL: 1, MOVES: 2, NONE: 3 } as const;

/** The stored entries of a message, newest first. */
export function readEditHistory(message: Pick<Message, 'editHistory'>): EditEntry[] {
  return message.editHistory ? (JSON.parse(message.editHistory) as EditEntry[]) : [];
}

/** The JSON to store after adding `entry` in front of the existing entries. */
export function withEdit(message: Pick<Message, 'editHistory'>, entry: EditEntry): string {
  return JSON.stringify([entry, ...readEditHistory(message)]);
}

/** A snapshot of GET /messages/{id}/history. */
export type Snapshot = components['schemas']['EditHistorySnapshot'];

/**
 * The message's snapshots, oldest first: the message as sent, then its state
 * after each edit. Walks back from the current state through the stored
 * entries (newest first), undoing each one.
 */
export function messageSnapshots(
  message: Message,
  policy: number,
  allowEmptyTopicName: boolean,
): Snapshot[] {
  if (policy === HistoryPolicy.NONE)
    throw badRequest('Message edit history is disabled in this organization');
  const show = (topic: string) => displayTopic(topic, allowEmptyTopicName);
  let content = message.content;
  let rendered = message.renderedContent;
  let topic = message.topic;
  const newestFirst: Snapshot[] = [];
  for (const entry of readEditHistory(message)) {
    const snap: Snapshot = {
      topic: show(topic),
      content,
      rendered_content: rendered,
      timestamp: entry.timestamp,
      user_id: entry.user_id,
    };
    if (entry.prev_topic !== undefined) {
      snap.prev_topic = show(entry.prev_topic);
      topic = entry.prev_topic;
    }
    if (entry.prev_stream !== undefined) {
      snap.stream = entry.stream;
      snap.prev_stream = entry.prev_stream;
    }
    if (entry.prev_content !== undefined) {
      snap.prev_content = entry.prev_content;
      snap.prev_rendered_content = entry.prev_rendered_content ?? '';
      snap.content_html_diff = htmlDiff(entry.prev_rendered_content ?? '', rendered);
      content = entry.prev_content;
      rendered = entry.prev_rendered_content ?? '';
    }
    newestFirst.push(snap);
  }
  const original: Snapshot = {
    topic: show(topic),
    content,
    rendered_content: rendered,
    timestamp: Math.floor(message.dateSent.getTime() / 1000),
    user_id: message.senderId,
  };
  const snapshots = [original, ...newestFirst.reverse()];
  if (policy !== HistoryPolicy.MOVES) return snapshots;
  // Moves only: content edits are dropped and content fields left out.
  return snapshots
    .filter((s, i) => i === 0 || s.prev_topic !== undefined || s.prev_stream !== undefined)
    .map(
      ({
        content: _c,
        rendered_content: _r,
        prev_content: _p,
        prev_rendered_content: _pr,
        content_html_diff: _d,
        ...rest
      }) => rest,
    );
}

/**
 * A simple HTML diff in Zulip's markup: the previous HTML struck through,
 * then the new HTML marked as inserted (when the two differ).
 */
function htmlDiff(before: string, after: string): string {
  if (before === after) return after;
  return `<span class="highlight_text_deleted">${before}</span><span class="highlight_text_inserted">${after}</span>`;
}

// Personal message flags: POST /messages/flags, POST /messages/flags/narrow,
// and marking everything, a channel or a topic as read.
import {
  doMarkAllAsRead,
  doMarkChannelAsRead,
  doUpdateMessageFlags,
  type FlagUpdate,
} from '../actions/messages/message-flags';
import { badRequest } from '../errors';
import { MAX_MESSAGES_PER_FETCH, fetchMessages } from '../lib/messages/message-fetch';
import { readableChannel, topicReceived } from '../lib/messages/read-state';
import { parseNarrow } from '../lib/narrow/narrow';
import { normalizeTopic } from '../lib/channels/topics';
import type { Handler, HandlerMap } from './types';

/** The `ignored_because_not_subscribed_channels` field, present when marking messages unread. */
function ignoredField(update: FlagUpdate) {
  return update.ignoredChannels !== null
    ? { ignored_because_not_subscribed_channels: update.ignoredChannels }
    : {};
}

/** Adds or removes a personal flag on listed messages. */
export const updateMessageFlags: Handler<'update-message-flags'> = async ({
  params,
  services,
  user,
}) => {
  const update = await doUpdateMessageFlags(
    services,
    user,
    params.op,
    params.flag,
    params.messages,
  );
  return { messages: params.messages, ...ignoredField(update) };
};

/** The anchor as GET /messages reads it: a keyword, or a message ID (sent as text or a number). */
function parseAnchor(anchor: string | number): string | number {
  if (typeof anchor === 'number') return anchor;
  return /^-?\d+$/.test(anchor) ? Number(anchor) : anchor;
}

/**
 * Adds or removes a personal flag on a range of the messages of a narrow,
 * found as GET /messages finds them; the range is bounded to 5000 messages.
 */
export const updateMessageFlagsForNarrow: Handler<'update-message-flags-for-narrow'> = async ({
  params,
  services,
  user,
}) => {
  const anchor = parseAnchor(params.anchor);
  const includeAnchor = params.include_anchor ?? true;
  if (params.num_before > 0 && params.num_after > 0 && !includeAnchor)
    throw badRequest('The anchor can only be excluded at an end of the range');
  // Bound the range, giving the side before the anchor at least half of it.
  const max = MAX_MESSAGES_PER_FETCH;
  const numBefore = Math.min(params.num_before, Math.max(max - params.num_after, max / 2));
  const numAfter = Math.min(params.num_after, max - numBefore);
  const fetched = await services.db.read((db) =>
    fetchMessages(db, services.db.provider, user, {
      anchor,
      numBefore,
      numAfter,
      includeAnchor,
      narrow: parseNarrow(params.narrow),
    }),
  );
  const ids = fetched.messages.map((m) => Number(m.id));
  const update = await doUpdateMessageFlags(services, user, params.op, params.flag, ids);
  return {
    processed_count: ids.length,
    updated_count: update.updated.length,
    first_processed_id: ids.length ? ids[0] : null,
    last_processed_id: ids.length ? ids[ids.length - 1] : null,
    found_oldest: fetched.foundOldest,
    found_newest: fetched.foundNewest,
    ...ignoredField(update),
  };
};

/** Marks every message of the user read. */
export const markAllAsRead: Handler<'mark-all-as-read'> = async ({ services, user }) => {
  await doMarkAllAsRead(services, user);
  return { complete: true };
};

/** Marks the user's messages of one channel read. */
export const markStreamAsRead: Handler<'mark-stream-as-read'> = async ({
  params,
  services,
  user,
}) => {
  const stream = await services.db.read((db) => readableChannel(db, user, params.stream_id));
  await doMarkChannelAsRead(services, user, stream);
  return {};
};

/** Marks the user's messages of one topic read. */
export const markTopicAsRead: Handler<'mark-topic-as-read'> = async ({
  params,
  services,
  user,
}) => {
  const topic = normalizeTopic(params.topic_name);
  const stream = await services.db.read(async (db) => {
    const found = await readableChannel(db, user, params.stream_id);
    if (topic !== '' && !(await topicReceived(db, user.id, found.id, topic)))
      throw badRequest(`No such topic '${params.topic_name}'`);
    return found;
  });
  await doMarkChannelAsRead(services, user, stream, topic.toLowerCase());
  return {};
};

/** The operations of this area, by operationId. */
export const messageFlagHandlers = {
  'update-message-flags': updateMessageFlags,
  'update-message-flags-for-narrow': updateMessageFlagsForNarrow,
  'mark-all-as-read': markAllAsRead,
  'mark-stream-as-read': markStreamAsRead,
  'mark-topic-as-read': markTopicAsRead,
} satisfies Partial<HandlerMap>;

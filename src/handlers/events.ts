// Event queues: POST /register, GET /events and DELETE /events.
import { badEventQueue, badRequest } from '../errors';
import { ParkedAnswer, ParkedPoll, type PollAnswer } from '../events/parked';
import { eventsJson, jsonText } from '../events/queues';
import { EventStream } from '../events/stream';
import {
  MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
  MAX_REMINDER_NOTE_LENGTH,
  Role,
  ZULIP_FEATURE_LEVEL,
  ZULIP_VERSION,
} from '../lib/constants';
import { parseNarrow } from '../lib/narrow/narrow';
import type { StateRequest } from '../lib/state';
import { stateProviders } from './register-state';
import type { Handler, HandlerMap } from './types';

/** Creates an event queue and returns it with the initial state asked for. */
export const registerQueue: Handler<'register-queue'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const narrow = parseNarrow(params.narrow);
  if (params.all_public_streams && user.role === Role.GUEST)
    throw badRequest('User not authorized for this query');
  const eventTypes = params.event_types ?? null;
  const fetchTypes = params.fetch_event_types ?? eventTypes;
  const queue =
    eventTypes !== null && eventTypes.length === 0
      ? null
      : await services.queues.create({
          userId: user.id,
          realmId: realm.id,
          eventTypes,
          allPublicStreams: params.all_public_streams ?? false,
          narrow,
          clientCapabilities: params.client_capabilities ?? {},
          applyMarkdown: params.apply_markdown ?? false,
          clientGravatar: params.client_gravatar ?? false,
        });
  const state = await services.db.read(async (db) => {
    const req: StateRequest = {
      db,
      externalUrl: services.config.externalUrl,
      config: services.config,
      fetchEventTypes: fetchTypes,
      user,
      realm,
      narrow,
      clientGravatar: params.client_gravatar ?? false,
      applyMarkdown: params.apply_markdown ?? false,
      includeSubscribers: params.include_subscribers ?? false,
      slimPresence: params.slim_presence ?? false,
      presence: services.presence,
      clientCapabilities: params.client_capabilities ?? {},
    };
    const out: Record<string, unknown> = {};
    for (const [type, provider] of Object.entries(stateProviders)) {
      if (fetchTypes === null || fetchTypes.includes(type)) Object.assign(out, await provider(req));
    }
    return out;
  });
  return {
    ...state,
    queue_id: queue?.id ?? null,
    last_event_id: queue?.lastEventId ?? -1,
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_merge_base: ZULIP_VERSION,
    max_bulk_new_subscription_messages: MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
    max_reminder_note_length: MAX_REMINDER_NOTE_LENGTH,
  };
};

/**
 * Long-polls a queue for events after `last_event_id`. A poll with nothing to
 * answer yet is handed back parked on its queue, for the HTTP layer to answer
 * when its events (or its heartbeat) come.
 */
export const getEvents: Handler<'get-events'> = async ({ params, services, user }) => {
  const result = await services.queues.poll({
    queueId: params.queue_id,
    userId: user.id,
    lastEventId: params.last_event_id ?? -1,
    dontBlock: params.dont_block ?? false,
  });
  if (!result) throw badEventQueue(params.queue_id);
  if (result instanceof ParkedPoll) return new ParkedAnswer(result, pollFields);
  return pollFields(params.queue_id, result);
};

/** The fields of a poll's answer; the events written from each body's JSON, shared by the queues it went to. */
function pollFields(queue: ParkedPoll | string, events: PollAnswer) {
  return {
    queue_id: typeof queue === 'string' ? queue : queue.queueId,
    events: jsonText(eventsJson(events ?? [])),
  };
}

/**
 * Follows a queue as server-sent events, from after the event its client
 * last received: the Last-Event-ID header (sent by EventSource when it
 * reconnects), else `last_event_id`; events up to it are acknowledged.
 */
export const streamEvents: Handler<'stream-events'> = async ({
  params,
  headers,
  services,
  user,
}) => {
  const lastEventId = lastEventIdHeader(headers['last-event-id']) ?? params.last_event_id ?? -1;
  const stream = await EventStream.open(
    services.queues,
    { queueId: params.queue_id, userId: user.id, lastEventId },
    services.config.eventStreamMaxUnsentBytes,
  );
  if (!stream) throw badEventQueue(params.queue_id);
  return stream;
};

/** The event ID of a Last-Event-ID header, undefined without one; a 400 when it is not an event ID. */
function lastEventIdHeader(value: string | string[] | undefined): number | undefined {
  const header = Array.isArray(value) ? value.join(',') : value;
  if (header === undefined || header.trim() === '') return undefined;
  const id = Number(header);
  if (!/^-?\d{1,16}$/.test(header.trim()) || !Number.isSafeInteger(id) || id < -1)
    throw badRequest('Invalid Last-Event-ID');
  return id;
}

/** Deletes a queue. */
export const deleteQueue: Handler<'delete-queue'> = async ({ params, services, user }) => {
  if (!(await services.queues.delete(params.queue_id, user.id)))
    throw badEventQueue(params.queue_id);
  return {};
};

/** The operations of this area, by operationId. */
export const eventHandlers = {
  'register-queue': registerQueue,
  'get-events': getEvents,
  'stream-events': streamEvents,
  'delete-queue': deleteQueue,
} satisfies Partial<HandlerMap>;

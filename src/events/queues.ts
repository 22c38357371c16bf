// Event queues: one per registered client. Actions publish events to users
// after their transaction commits; each of the user's queues that asked for
// that event type gets it with an ID that increases within the queue (in one
// process's memory, the queue's own count; with Redis, the event's position
// in the log every queue reads). A long-poll waits on its queue without
// holding any database connection.
//
// This file holds what every queue store shares: the shapes of queues, events
// and publications (all plain data, so that they can travel between
// processes), how one publication is shaped for one queue, and the store
// interface. The stores are memory-queues.ts (one process) and
// redis-queues.ts (many processes sharing a Redis).
import type { components } from '../../generated/api';
import type { ParkedPoll, PollAnswer } from './parked';

/** An event as delivered, with its position in the queue: one of the contract's event schemas. */
export type QueuedEvent = components['schemas']['Event'];
/** Removes `K` from each member of a union, keeping the union apart. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/**
 * An event as published: one of the event schemas of openapi.yaml, without
 * its queue position, so that publishing an undocumented or misshapen event
 * fails to compile. A new event gets its schema in openapi.yaml first.
 */
export type EventBody = DistributiveOmit<QueuedEvent, 'id'>;
/** The event of one `type` (and `op`, for types that have ops), as published. */
export type EventOf<
  T extends EventBody['type'],
  O extends string | undefined = undefined,
> = O extends string ? Extract<EventBody, { type: T; op: O }> : Extract<EventBody, { type: T }>;
/** A message event, as published. */
export type MessageEventBody = EventOf<'message'>;

/**
 * One term of a narrow, in the one form the server works with: parsed once,
 * where a request brings it in, from either form a client sends
 * (lib/narrow/narrow.ts).
 */
export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

/** What a client asked for when it registered; never changes afterwards. */
export interface QueueOptions {
  userId: number;
  realmId: number;
  /** Event types to keep; null keeps all. */
  eventTypes: string[] | null;
  allPublicStreams: boolean;
  /** Message events are kept only when they match this narrow (empty: all). */
  narrow: NarrowTerm[];
  clientCapabilities: Record<string, unknown>;
  /** Message content as HTML (true) or raw Markdown (false). */
  applyMarkdown: boolean;
  /** The client computes gravatar addresses itself. */
  clientGravatar: boolean;
}

/**
 * What a narrow is checked against, and what a message event is finalized
 * from, for each queue: plain data published beside the message event.
 */
export interface MessageFacts {
  senderId: number;
  /** The sender's real email address, lower-cased. */
  senderEmail: string;
  streamId: number | null;
  streamName: string;
  topic: string;
  /** Participants of a direct message (sender included), by ID. */
  dmUserIds: number[];
  /** Their real email addresses, lower-cased, in the order of `dmUserIds`. */
  dmEmails: string[];
  rawContent: string;
  renderedContent: string;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  /** The avatar URL for clients that compute gravatars themselves (null when they may). */
  gravatarAvatarUrl: string | null;
  /**
   * Recipients for whom the message is muted (is:muted, in:home): they muted
   * its topic, or muted its channel without unmuting or following the topic.
   */
  mutedFor: number[];
  /** Recipients who follow the message's topic (is:followed). */
  followedBy: number[];
}

/**
 * What queues whose client lacks `capability` get instead of the event: a
 * replacement, or null for nothing. Plain data, so it can travel between
 * processes with the event.
 */
export interface CapabilityFallback {
  capability: string;
  event: EventBody | null;
}

/** One event as the bus hands it to a store: the event and what shapes it per queue. */
export interface Publication {
  event: EventBody;
  /** What clients without a capability get instead. */
  fallback?: CapabilityFallback;
  /**
   * A capability whose clients get nothing of this publication: legacy
   * events that newer clients replace with another they also get.
   */
  onlyWithout?: string;
  /**
   * An event type whose queues, when they asked for it by name, get nothing
   * of this publication: legacy events a newer type replaces (Zulip sends
   * `muted_topics` only to clients that did not ask for `user_topic`).
   */
  supersededBy?: string;
  /** For message events: the facts narrows are matched against and the event finalized from. */
  facts?: MessageFacts;
}

/** How message events are matched and finalized for a queue (set by the messages area at start). */
export interface MessageEventHooks {
  /** Whether a message event with these facts belongs in a queue registered with `options.narrow`. */
  matchesNarrow(options: QueueOptions, event: MessageEventBody, facts: MessageFacts): boolean;
  /** The event as a queue with these options receives it (raw Markdown, gravatar avatars). */
  finalize(options: QueueOptions, event: MessageEventBody, facts: MessageFacts): MessageEventBody;
}

/** Hooks that keep every message event and change none (until the messages area sets its own). */
export const noMessageHooks: MessageEventHooks = {
  matchesNarrow: () => true,
  finalize: (_options, event) => event,
};

/** Whether a queue registered with `options` keeps events of `type`. */
export function wantsType(options: QueueOptions, type: string): boolean {
  return type === 'heartbeat' || options.eventTypes === null || options.eventTypes.includes(type);
}

/**
 * The event one queue gets from a publication, or null for none: the event
 * or its capability fallback, if the queue keeps that type and (for message
 * events) its narrow matches, finalized for the queue's options.
 */
export function eventForQueue(
  publication: Publication,
  options: QueueOptions,
  hooks: MessageEventHooks,
): EventBody | null {
  const { event, fallback, facts, onlyWithout, supersededBy } = publication;
  if (onlyWithout !== undefined && options.clientCapabilities[onlyWithout] === true) return null;
  if (supersededBy !== undefined && options.eventTypes?.includes(supersededBy)) return null;
  const body =
    !fallback || options.clientCapabilities[fallback.capability] === true ? event : fallback.event;
  if (!body || !wantsType(options, body.type)) return null;
  if (!facts || body.type !== 'message') return body;
  if (options.narrow.length > 0 && !hooks.matchesNarrow(options, body, facts)) return null;
  return hooks.finalize(options, body, facts);
}

/**
 * Hooks that finalize a message event once per kind of queue for one
 * publication (by apply_markdown and client_gravatar): the queues of the same
 * kind then share one body, and its JSON is written once (see eventsJson).
 */
export function sharedFinalizing(
  publication: Publication,
  hooks: MessageEventHooks,
): MessageEventHooks {
  const finalized = new Map<string, MessageEventBody>();
  return {
    matchesNarrow: hooks.matchesNarrow,
    finalize(options, event, facts) {
      const key = `${event === publication.event ? 'e' : 'f'}${options.applyMarkdown ? 1 : 0}${options.clientGravatar ? 1 : 0}`;
      let body = finalized.get(key);
      if (!body) finalized.set(key, (body = hooks.finalize(options, event, facts)));
      return body;
    },
  };
}

/** The body each queued event was copied from, so that a poll's answer reuses the body's JSON. */
const bodyOfQueued = new WeakMap<QueuedEvent, EventBody>();
/** The JSON of each body (shared by every queue holding it), once written. */
const jsonOfBody = new WeakMap<EventBody, string>();

/** The queued copy of `body` with its position in one queue. */
export function queuedEvent(body: EventBody, id: number): QueuedEvent {
  const queued = { ...body, id } as QueuedEvent;
  bodyOfQueued.set(queued, body);
  return queued;
}

/**
 * The JSON array of a poll's events. An event queued with `queuedEvent`
 * reuses its body's JSON (written once for all the queues it went to), with
 * its own ID first; any other event is serialized whole.
 */
export function eventsJson(events: QueuedEvent[]): string {
  return `[${events.map(eventJson).join(',')}]`;
}

/** The JSON of one event, from its body's JSON when it was queued with `queuedEvent` (see eventsJson). */
export function eventJson(event: QueuedEvent): string {
  const body = bodyOfQueued.get(event);
  if (!body) return JSON.stringify(event);
  let json = jsonOfBody.get(body);
  if (json === undefined) jsonOfBody.set(body, (json = JSON.stringify(body)));
  // `{` of the body's object, then its members after the ID.
  return json.length > 2 ? `{"id":${event.id},${json.slice(1)}` : `{"id":${event.id}}`;
}

const JSON_TEXT = Symbol('JSON text');

/**
 * A value already written as JSON: the HTTP layer puts its text in the answer
 * as it is. A handler may answer one in place of any top-level field of its
 * success body (see Result in handlers/types.ts, and textOfJson).
 */
export interface JsonText {
  readonly [JSON_TEXT]: string;
}

/** `text`, JSON already, as a field of a handler's answer. */
export function jsonText(text: string): JsonText {
  return { [JSON_TEXT]: text };
}

/** The text of a value made by jsonText, or undefined for any other value. */
export function textOfJson(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && JSON_TEXT in value
    ? (value as { [JSON_TEXT]: string })[JSON_TEXT]
    : undefined;
}

/** Timing and size limits of the queues. */
export interface QueueLimits {
  heartbeatMs: number;
  idleTimeoutMs: number;
  maxEvents: number;
  /**
   * How long a store shared through Redis keeps trying to deliver a
   * publication it could not deliver at once, before it drops the queues the
   * publication was for (so that they answer BAD_EVENT_QUEUE_ID rather than
   * go on without it). Unused by the memory store, which cannot fail.
   */
  publishRetryMs?: number;
  /**
   * How long a process of a store shared through Redis may go without
   * renewing its liveness before the others take it for dead (see
   * commit-marks.ts). Unused by the memory store.
   */
  livenessMs?: number;
  /**
   * How long the main thread of such a process may show no sign of life
   * before its liveness is let lapse (see liveness-thread.ts). Unused by the
   * memory store.
   */
  hangMs?: number;
}

/** The size of a queue store, for metrics. */
export interface QueueStats {
  /** Live event queues. */
  queues: number;
  /**
   * Events held for them: in memory, those not yet acknowledged by their
   * clients; with Redis, the entries of the shared log (which every queue reads).
   */
  events: number;
  /** Polls of this process waiting for an event. */
  waitingPolls: number;
}

/** What became of publications that could not be delivered at once, for metrics. */
export interface PublicationStats {
  /** Publications whose first delivery failed, kept to be delivered again. */
  delayed: number;
  /** Publications given up after the retry bound: the queues they were for were dropped. */
  abandoned: number;
  /** Publications waiting now for another delivery attempt. */
  backlog: number;
  /** Queues dropped because they missed a publication. */
  queuesDropped: number;
  /** Writes that committed without the in-flight mark, Redis being unreachable (see commit-marks.ts). */
  markFailures: number;
  /** Queues dropped because another process died with events of committed writes not yet in them. */
  queuesDroppedAfterCrash: number;
}

/** A newly created queue. */
export interface NewQueue {
  id: string;
  /** ID of the last event added; -1 before the first. */
  lastEventId: number;
}

/** One long-poll of a queue. */
export interface PollRequest {
  queueId: string;
  /** Only the owner may poll a queue; anyone else finds none. */
  userId: number;
  /** Events up to this ID are acknowledged and dropped. */
  lastEventId: number;
  /** Answer at once, even with nothing to say. */
  dontBlock: boolean;
  /**
   * Answer only the events after this ID (at least `lastEventId`): those up
   * to it stay in the queue, unacknowledged. A stream sends events as they
   * come and leaves them until its client acknowledges them on reconnecting.
   */
  after?: number;
  /**
   * The poll of a stream following the queue (stream.ts): at the
   * heartbeat interval it answers nothing rather than adding a heartbeat
   * event, and it answers null once the stream is to end (a newer poll
   * replaced it, the queue was deleted, the process is shutting down).
   */
  follow?: boolean;
}

/**
 * Where the queues live. Every method may be called from any process sharing
 * the store; waiting polls are woken wherever the event was published.
 */
export interface EventQueueStore {
  /** Creates a queue for a user. */
  create(options: QueueOptions): Promise<NewQueue>;
  /**
   * Answers a poll: drops the acknowledged events, returns the rest at once
   * if there are any (or if `dontBlock`), and otherwise parks the poll on its
   * queue (parked.ts), to be answered with the next event or, after the
   * heartbeat interval, a heartbeat. A newer poll of the same queue answers
   * an older one with nothing, and so does cancelling it. Null when the user
   * has no queue of that ID (and, for a poll that follows, once its stream is
   * to end).
   */
  poll(request: PollRequest): PollAnswer | ParkedPoll | Promise<PollAnswer | ParkedPoll>;
  /** Removes one of the user's queues, answering its waiting poll with nothing; false when there is none. */
  delete(queueId: string, userId: number): Promise<boolean>;
  /** Adds a publication to every queue of the given users that wants it. */
  publish(publication: Publication, userIds: Iterable<number>): void | Promise<void>;
  /**
   * Adds a publication to every queue of the organization that wants it,
   * except those of `exceptUserIds`: an event for all its members, without a
   * list of them.
   */
  publishToRealm(
    realmId: number,
    publication: Publication,
    exceptUserIds: number[],
  ): void | Promise<void>;
  /**
   * Adds a public channel's message to the organization's queues registered
   * with all_public_streams, except those of `exceptUserIds` (the recipients,
   * who get it with their own flags).
   */
  publishToPublicQueues(
    realmId: number,
    publication: Publication,
    exceptUserIds: Iterable<number>,
  ): void | Promise<void>;
  /**
   * For shutdown: answers every poll waiting in this process, and from then
   * on answers polls at once instead of waiting, leaving the events in their
   * queues, so that clients poll again (on another process) and lose nothing.
   */
  drain(): void;
  /** Removes queues nobody has polled for longer than the idle timeout. */
  sweep(now?: number): void | Promise<void>;
  /** Answers waiting polls and lets go of timers and connections. */
  close(): Promise<void>;
  /** How many queues, events and waiting polls the store holds, counted when asked (for /metrics). */
  stats(): QueueStats | Promise<QueueStats>;
  /** How many polls wait in this process now (stats' waitingPolls, without counting the rest). */
  waitingPolls(): number;
  /** What became of publications that could not be delivered at once, counted in this process. */
  publicationStats(): PublicationStats;
}

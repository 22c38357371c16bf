// A stream of one queue's events (GET /events/stream), for the HTTP layer to
// write as server-sent events: the events waiting when it opens, then each
// batch as it comes, from polls of the store that follow the queue.
//
// Sending an event does not acknowledge it: what the client received is known
// only when it reconnects and says so (Last-Event-ID). Until then the events
// sent stay in the queue (within its bound of events, the oldest dropped
// first), so that a stream resumed on any process starts exactly after the
// last event its client has, and nothing in flight when a connection broke
// is lost.
import { answerOf, ParkedPoll } from './parked';
import type { EventQueueStore, QueuedEvent } from './queues';

/** What a stream is opened on. */
export interface StreamRequest {
  queueId: string;
  /** Only the owner may follow a queue; anyone else finds none. */
  userId: number;
  /** Events up to this ID are acknowledged and dropped; the stream starts after it. */
  lastEventId: number;
}

/** One client's stream of a queue. */
export class EventStream {
  /** ID of the last event handed out. */
  private sent: number;
  /** The poll under way, while it waits. */
  private waiting: ParkedPoll | null = null;

  private constructor(
    private readonly store: EventQueueStore,
    private readonly request: StreamRequest,
    /** The events waiting when the stream opened. */
    readonly first: QueuedEvent[],
    /** Most bytes written and not yet taken by the client before it is dropped as too slow. */
    readonly maxUnsentBytes: number,
  ) {
    this.sent = first.at(-1)?.id ?? request.lastEventId;
  }

  /**
   * Opens a stream: acknowledges the events up to `lastEventId` and takes
   * those waiting after it. Null when the user has no queue of that ID.
   */
  static async open(
    store: EventQueueStore,
    request: StreamRequest,
    maxUnsentBytes: number,
  ): Promise<EventStream | null> {
    const first = await answerOf(await store.poll({ ...request, dontBlock: true }));
    return first && new EventStream(store, request, first, maxUnsentBytes);
  }

  /**
   * The events after those handed out, as soon as there are any: a batch,
   * an empty one when the heartbeat interval passed without events, or null
   * once the stream is over (a newer poll or stream took the queue, it was
   * deleted, or this process is shutting down).
   */
  async next(): Promise<QueuedEvent[] | null> {
    const result = await this.store.poll({
      ...this.request,
      dontBlock: false,
      after: this.sent,
      follow: true,
    });
    if (result instanceof ParkedPoll) this.waiting = result;
    const events = await answerOf(result);
    this.waiting = null;
    if (events && events.length > 0) this.sent = events[events.length - 1].id;
    return events;
  }

  /** Stops waiting for events: the client went away. */
  close(): void {
    this.waiting?.cancel();
    this.waiting = null;
  }
}

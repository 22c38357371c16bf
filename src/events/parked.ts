// A long-poll with nothing to answer yet waits as a plain object on its queue:
// the store answers it through one callback, which the HTTP layer sets to
// write the answer. Nothing else of the request waits with it (no suspended
// handler, no promise), and one timer per store serves every poll's
// heartbeat. Thousands of clients wait at any time, so what each holds
// while it waits is most of what a server holds.
import type { components } from '../../generated/api';

/**
 * What a parked poll is answered with: events (QueuedEvent of queues.ts), or
 * null once a stream's poll is over (PollRequest.follow).
 */
export type PollAnswer = components['schemas']['Event'][] | null;

/**
 * A poll parked on its queue. Each store extends it with what it keeps of
 * the wait; the store answers it once with `settle`, and the client's going
 * away cancels it.
 */
export abstract class ParkedPoll {
  /** Neighbours in the store's heartbeat list (see HeartbeatList). */
  prev: ParkedPoll | null = null;
  next: ParkedPoll | null = null;
  /** When its heartbeat is due (performance.now() milliseconds). */
  due = 0;
  /** Answered (or cancelled): nothing more happens to it. */
  settled = false;
  /** Who hears the answer, once set; the answer itself while nobody listens yet. */
  private listener: ((answer: PollAnswer) => void) | null = null;
  private early: PollAnswer = null;

  constructor(
    /** The queue it waits on. */
    readonly queueId: string,
    /** Events after this ID answer it. */
    readonly after: number,
    /** The poll of a stream (PollRequest.follow). */
    readonly follow: boolean,
  ) {}

  /** Hands the answer to `listener` once it comes (at once, if it came already). */
  onAnswer(listener: (answer: PollAnswer) => void): void {
    if (this.settled) return listener(this.early);
    this.listener = listener;
  }

  /** For its store: answers the poll, once. */
  settle(answer: PollAnswer): void {
    if (this.settled) return;
    this.settled = true;
    const listener = this.listener;
    this.listener = null;
    if (listener) listener(answer);
    else this.early = answer;
  }

  /** Stops waiting, because the client went away: answered with nothing. */
  abstract cancel(): void;
}

/** The answer of a poll that is waiting or not, as a promise: for the callers that await it. */
export function answerOf(result: PollAnswer | ParkedPoll): Promise<PollAnswer> {
  if (!(result instanceof ParkedPoll)) return Promise.resolve(result);
  return new Promise((resolve) => result.onAnswer(resolve));
}

/**
 * The parked polls of a store in the order their heartbeats come due. Every
 * poll waits the same interval, so that order is the order they were added
 * in: a poll joins at the tail, leaves from anywhere (answered, cancelled),
 * and one timer, set for the head, serves them all.
 */
export class HeartbeatList {
  private head: ParkedPoll | null = null;
  private tail: ParkedPoll | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly intervalMs: number,
    /** Called with each poll whose heartbeat came due, once it has left the list. */
    private readonly onDue: (poll: ParkedPoll) => void,
  ) {}

  /** Adds a poll, due one interval from now. */
  add(poll: ParkedPoll): void {
    poll.due = performance.now() + this.intervalMs;
    poll.prev = this.tail;
    poll.next = null;
    if (this.tail) this.tail.next = poll;
    else this.head = poll;
    this.tail = poll;
    if (!this.timer) this.arm();
  }

  /** Takes a poll out of the list, if it is in it. */
  remove(poll: ParkedPoll): void {
    if (poll.prev === null && this.head !== poll) return;
    if (poll.prev) poll.prev.next = poll.next;
    else this.head = poll.next;
    if (poll.next) poll.next.prev = poll.prev;
    else this.tail = poll.prev;
    poll.prev = poll.next = null;
    if (!this.head && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /**
   * Sets the timer for the head's heartbeat. It does not hold the process
   * open: the polls' own connections do, while anyone waits for an answer.
   */
  private arm(): void {
    const wait = Math.max(1, Math.ceil(this.head!.due - performance.now()));
    this.timer = setTimeout(() => this.fire(), wait).unref();
  }

  /** Hands out every poll now due, then waits for the next. */
  private fire(): void {
    this.timer = null;
    const now = performance.now();
    while (this.head && this.head.due <= now) {
      const poll = this.head;
      this.remove(poll);
      this.onDue(poll);
    }
    if (this.head && !this.timer) this.arm();
  }
}

/**
 * What a handler returns for a poll it parked: the poll, and how the fields
 * of its success body are made from its answer. The HTTP layer writes that
 * body when the answer comes, and cancels the poll if the client goes first.
 */
export class ParkedAnswer<F extends object = object> {
  /** Parameters of the request the server ignored, for the envelope (set by the HTTP layer). */
  ignored: string[] = [];

  constructor(
    readonly poll: ParkedPoll,
    readonly fields: (poll: ParkedPoll, answer: PollAnswer) => F,
  ) {}
}

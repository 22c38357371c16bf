// A steady load for fault drills (test/cluster-faults.test.ts,
// test/cluster-kill.test.ts, bench/faults.ts): people sending direct
// messages, the recipients long-polling their event queues, and a client
// registering and deleting queues over and over, each answer recorded with
// its status and time. A drill then tells which acknowledged messages a queue
// never received, and which are missing from the database.
import { Client } from 'pg';
import { waitFor } from './wait';

/** An answer: status, headers and parsed JSON body (as test/support/server.ts's Reply). */
export interface DrillReply {
  status: number;
  headers: Headers;
  body: any;
}

/** What the drill sends requests through: the tests' ApiClient, or the bench's own client. */
export interface DrillClient {
  /** Sends a request, without checking the answer against openapi.yaml. */
  send(
    method: string,
    path: string,
    options: { as: DrillUser; params: Record<string, unknown> },
  ): Promise<DrillReply>;
  /** Sends a request and checks the answer against openapi.yaml (tests only). */
  call?(
    method: string,
    path: string,
    options: { as: DrillUser; params: Record<string, unknown> },
  ): Promise<DrillReply>;
}

/** A person of the drill. */
export interface DrillUser {
  id: number;
  email: string;
  apiKey: string;
}

/** One request of the drill and how it ended. */
export interface DrillAnswer {
  operation: 'send' | 'poll' | 'register';
  /** The HTTP status, or 0 when no answer came (the connection was reset or refused). */
  status: number;
  code?: string;
  /** Whether a 503 carried Retry-After. */
  retryAfter?: boolean;
  startedAt: number;
  ms: number;
}

/** A queue the drill polls, and the messages it received. */
export interface DrillQueue {
  user: DrillUser;
  queueId: string;
  received: Set<number>;
  /** The queue answered BAD_EVENT_QUEUE_ID: its client would register again. */
  lost: boolean;
}

/** An acknowledged message. */
export interface Acknowledged {
  id: number;
  startedAt: number;
  answeredAt: number;
}

/** Options of a drill. */
export interface DrillOptions {
  /** Servers to spread requests over (polls and registrations on the first, sends on the last). */
  clients: DrillClient[];
  sender: DrillUser;
  recipients: DrillUser[];
  /** Loops sending messages at once. */
  senders?: number;
  /** Check every answer against openapi.yaml (tests); the bench does not. */
  checkContract?: boolean;
  /** Stop sending after this many attempts. */
  maxSends?: number;
}

/**
 * Paces a load loop after an answer that came at once (a refused connection):
 * the drill's own rhythm, not a wait for a state.
 */
function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** The load of a drill, running from `start` to `stop`. */
export class FaultDrill {
  readonly answers: DrillAnswer[] = [];
  readonly acknowledged: Acknowledged[] = [];
  readonly queues: DrillQueue[] = [];
  /** Answers the drill did not expect (a 500, a contract mismatch...). */
  readonly problems: string[] = [];
  sendAttempts = 0;
  /** The requests sent and not answered yet, by number. */
  private readonly inFlight = new Map<number, { what: string; startedAt: number }>();
  private requestCount = 0;
  private sending = true;
  private polling = true;
  private readonly senderLoops: Promise<void>[] = [];
  private readonly pollerLoops: Promise<void>[] = [];

  constructor(private readonly options: DrillOptions) {}

  /** Registers the recipients' queues and starts the loops. */
  async start(): Promise<void> {
    const { clients, recipients } = this.options;
    for (const user of recipients) {
      const res = await this.request(clients[0], 'register', 'POST', '/register', user, {
        event_types: JSON.stringify(['message']),
      });
      if (res?.status !== 200) throw new Error(`register answered ${res?.status}`);
      this.queues.push({ user, queueId: res.body.queue_id, received: new Set(), lost: false });
    }
    for (const queue of this.queues) this.pollerLoops.push(this.poll(queue));
    for (let i = 0; i < (this.options.senders ?? 3); i++) this.senderLoops.push(this.send());
    this.senderLoops.push(this.registerAgainAndAgain());
  }

  /** Stops sending and registering; polls go on until `stop`. */
  async stopSending(): Promise<void> {
    this.sending = false;
    await this.settle('the sending loops to stop', this.senderLoops);
  }

  /** Waits for `loops` to end, naming the requests still unanswered if they do not. */
  private async settle(what: string, loops: Promise<void>[], timeoutMs = 60_000): Promise<void> {
    let ended = false;
    void Promise.allSettled(loops).then(() => (ended = true));
    await this.until(what, () => ended, timeoutMs);
    await Promise.all(loops);
  }

  /**
   * Stops everything. The queues are deleted, which answers their waiting
   * polls at once (rather than at their next heartbeat); a queue answering
   * BAD_EVENT_QUEUE_ID from then on does not count as lost.
   */
  async stop(): Promise<void> {
    await this.stopSending();
    this.polling = false;
    const client = this.options.clients[0];
    await Promise.all(
      this.queues
        .filter((queue) => !queue.lost)
        .map((queue) =>
          client
            .send('DELETE', '/events', { as: queue.user, params: { queue_id: queue.queueId } })
            .catch(() => undefined),
        ),
    );
    await this.settle('the polling loops to stop', this.pollerLoops);
  }

  /** Whether every send has stopped (after `stopSending`, or `maxSends` reached). */
  get sendsDone(): boolean {
    return !this.sending || this.sendAttempts >= (this.options.maxSends ?? Infinity);
  }

  /** Waits for `ready()` as `waitFor` does, naming the drill's state on failure. */
  until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    return waitFor(what, ready, timeoutMs).then(
      () => undefined,
      (error: Error) => {
        throw new Error(`${error.message}; ${this.summary()}`);
      },
    );
  }

  /** The state of the drill in a few words, for failure messages. */
  summary(): string {
    const counts = new Map<string, number>();
    for (const a of this.answers) {
      const key = `${a.operation} ${a.status}${a.code ? ` ${a.code}` : ''}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return JSON.stringify({
      answers: Object.fromEntries(counts),
      acknowledged: this.acknowledged.length,
      received: this.queues.map((q) => (q.lost ? 'lost' : q.received.size)),
      problems: this.problems.slice(0, 3),
      unanswered: this.unanswered(),
    });
  }

  /** The requests still waiting for their answer, oldest first: what each is and how long it has waited. */
  unanswered(now = Date.now()): string[] {
    return [...this.inFlight.values()].map(
      ({ what, startedAt }) => `${what} for ${now - startedAt} ms`,
    );
  }

  /** The acknowledged messages that `queue` has not received. */
  missing(queue: DrillQueue, among: Acknowledged[] = this.acknowledged): number[] {
    return among.filter((m) => !queue.received.has(m.id)).map((m) => m.id);
  }

  /** Answers (of `operation`, if given) whose request started in [from, to). */
  answersBetween(from: number, to: number, operation?: DrillAnswer['operation']): DrillAnswer[] {
    return this.answers.filter(
      (a) => a.startedAt >= from && a.startedAt < to && (!operation || a.operation === operation),
    );
  }

  private async send(): Promise<void> {
    const { clients, sender, recipients } = this.options;
    const to = JSON.stringify(recipients.map((u) => u.id));
    while (this.sending && this.sendAttempts < (this.options.maxSends ?? Infinity)) {
      const n = this.sendAttempts++;
      const startedAt = Date.now();
      const res = await this.request(
        clients[clients.length - 1],
        'send',
        'POST',
        '/messages',
        sender,
        {
          type: 'direct',
          to,
          content: `drill ${n}`,
        },
      );
      if (res?.status === 200)
        this.acknowledged.push({ id: res.body.id, startedAt, answeredAt: Date.now() });
      else await pause(20); // a refusal comes at once: pace the retries
    }
  }

  private async registerAgainAndAgain(): Promise<void> {
    const { clients, recipients } = this.options;
    while (this.sending && !this.sendsDone) {
      const user = recipients[0];
      const res = await this.request(clients[0], 'register', 'POST', '/register', user, {
        event_types: JSON.stringify(['message']),
        fetch_event_types: JSON.stringify(['message']),
      });
      if (res?.status === 200)
        await clients[0]
          .send('DELETE', '/events', {
            as: user,
            params: { queue_id: res.body.queue_id },
          })
          .catch(() => undefined);
      else await pause(20);
    }
  }

  private async poll(queue: DrillQueue): Promise<void> {
    const client = this.options.clients[0];
    let lastEventId = -1;
    while (this.polling && !queue.lost) {
      const res = await this.request(client, 'poll', 'GET', '/events', queue.user, {
        queue_id: queue.queueId,
        last_event_id: lastEventId,
      });
      if (res?.status === 200) {
        for (const event of res.body.events as {
          id: number;
          type: string;
          message?: { id: number };
        }[]) {
          lastEventId = Math.max(lastEventId, event.id);
          if (event.type === 'message') queue.received.add(event.message!.id);
        }
      } else if (res?.status === 400 && res.body.code === 'BAD_EVENT_QUEUE_ID') {
        if (this.polling) queue.lost = true;
        else break;
      } else {
        await pause(20);
      }
    }
  }

  /** Sends one request and records its answer; undefined when none came. */
  private async request(
    client: DrillClient,
    operation: DrillAnswer['operation'],
    method: string,
    path: string,
    as: DrillUser,
    params: Record<string, unknown>,
  ): Promise<DrillReply | undefined> {
    const startedAt = Date.now();
    const started = performance.now();
    const number = ++this.requestCount;
    this.inFlight.set(number, { what: `${operation} ${method} ${path}`, startedAt });
    let res: DrillReply;
    try {
      res =
        this.options.checkContract && client.call
          ? await client.call(method, path, { as, params })
          : await client.send(method, path, { as, params });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code) this.problems.push(`${method} ${path}: ${String(error)}`);
      this.answers.push({ operation, status: 0, code, startedAt, ms: performance.now() - started });
      return undefined;
    } finally {
      this.inFlight.delete(number);
    }
    const answer: DrillAnswer = {
      operation,
      status: res.status,
      code: res.body?.code,
      startedAt,
      ms: performance.now() - started,
    };
    if (res.status === 503) answer.retryAfter = res.headers.get('retry-after') !== null;
    this.answers.push(answer);
    const expected =
      res.status === 200 ||
      (res.status === 503 && res.body?.code === 'SERVICE_UNAVAILABLE' && answer.retryAfter) ||
      (operation === 'poll' && res.status === 400 && res.body?.code === 'BAD_EVENT_QUEUE_ID');
    if (!expected)
      this.problems.push(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res;
  }
}

/** The IDs among `ids` of messages stored in the database at `databaseUrl` (its schema from ?schema=). */
export async function storedMessageIds(databaseUrl: string, ids: number[]): Promise<Set<number>> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const table = schema ? `"${schema}"."Message"` : '"Message"';
    const { rows } = await client.query<{ id: number }>(
      `SELECT id FROM ${table} WHERE id = ANY($1::int[])`,
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  } finally {
    await client.end();
  }
}

// The connections of one process to the Redis that every server process of a
// deployment shares: one for commands (event queues, rate limits; commands
// issued in the same turn of the event loop go out in one write), one
// subscriber, over which the process hears the cache invalidations of the
// others, and one on which the event queue store follows the event log
// (redis-log.ts). No request holds a connection of its own.
import { randomUUID } from 'node:crypto';
import Redis, { type RedisOptions } from 'ioredis';

/** How long a command may wait for its answer, and a connection attempt for Redis's. */
const COMMAND_TIMEOUT_MS = 2000;
/** The longest wait between two attempts to reconnect. */
const RECONNECT_MAX_MS = 500;

/** What a message handler receives: the message, as published. */
export type MessageHandler = (message: string) => void;

/** One process's link to the shared Redis. */
export class RedisLink {
  /** Names this process in channel names and waiting polls. */
  readonly processId = randomUUID();
  /** For commands; shared by every request of the process. */
  readonly command: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, MessageHandler>();
  private readonly reconnectHandlers: (() => void)[] = [];
  private connectedOnce = false;
  private readonly options: RedisOptions;

  private constructor(
    /** Where Redis is, for the connections of other threads. */
    readonly url: string,
    /** Put before every key and channel name, so that deployments (and test runs) sharing a Redis never meet. */
    readonly prefix: string,
    onError: (error: Error) => void,
  ) {
    // While Redis cannot be reached a command fails at once (no queue of
    // commands waiting for the connection, no retry, none sent again after a
    // reconnection: the caller already heard it failed), and one that gets no
    // answer fails within COMMAND_TIMEOUT_MS (answerWithin); meanwhile the
    // connection is retried every RECONNECT_MAX_MS at most.
    const options: RedisOptions = (this.options = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
    });
    this.command = new Redis(url, { ...options, enableAutoPipelining: true });
    answerWithin(this.command, COMMAND_TIMEOUT_MS);
    // The subscriber renews its subscriptions itself (below), so that it
    // tells listeners to catch up only once the renewal is in place.
    this.subscriber = new Redis(url, { ...options, autoResubscribe: false });
    this.command.on('error', onError);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string, message: string) =>
      this.handlers.get(channel)?.(message),
    );
    // After a reconnection, the subscriptions are renewed; messages published
    // meanwhile were lost: then listeners catch up.
    this.subscriber.on('ready', () => {
      if (!this.connectedOnce) {
        this.connectedOnce = true;
        return;
      }
      const channels = [...this.handlers.keys()];
      void (channels.length > 0 ? this.subscriber.subscribe(...channels) : Promise.resolve()).then(
        () => {
          for (const handler of this.reconnectHandlers) handler();
        },
        onError,
      );
    });
  }

  /** Whether both connections are up. */
  get connected(): boolean {
    return this.command.status === 'ready' && this.subscriber.status === 'ready';
  }

  /** Connects both connections, or throws when Redis cannot be reached. */
  static async connect(
    url: string,
    prefix: string,
    onError: (error: Error) => void = () => undefined,
  ): Promise<RedisLink> {
    const link = new RedisLink(url, prefix, onError);
    try {
      await Promise.all([link.command.connect(), link.subscriber.connect()]);
    } catch (error) {
      link.command.disconnect();
      link.subscriber.disconnect();
      throw error;
    }
    return link;
  }

  /** The full name of a key or channel. */
  key(name: string): string {
    return this.prefix + name;
  }

  /** Calls `handler` with each message published on `channel` (a name without the prefix). */
  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    this.handlers.set(this.key(channel), handler);
    await this.subscriber.subscribe(this.key(channel));
  }

  /** Publishes `message` on `channel` to every process listening, this one included. */
  publish(channel: string, message: string): Promise<number> {
    return this.command.publish(this.key(channel), message);
  }

  /**
   * A connection of its own for blocking reads (XREAD BLOCK), without the
   * command timeout; its owner closes it.
   */
  async blockingConnection(onError: (error: Error) => void): Promise<Redis> {
    const connection = new Redis(this.url, this.options);
    connection.on('error', onError);
    await connection.connect();
    return connection;
  }

  /** Calls `handler` after the subscriber reconnects, when messages may have been missed. */
  onReconnect(handler: () => void): void {
    this.reconnectHandlers.push(handler);
  }

  /** Closes both connections after the commands already sent are answered. */
  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.subscriber.quit(), this.command.quit()]);
  }
}

/**
 * Makes each command of `client` fail ("Command timed out", as ioredis's own
 * commandTimeout does) when it has no answer `ms` after it was sent, counted
 * once the process has read what its sockets hold. A process busy for longer
 * than `ms` (a burst of thousands of polls) runs its due timers before it
 * reads its sockets: ioredis's timeout would then fail commands whose answers
 * came long before, and requests would be refused for a Redis that answered
 * in a millisecond. Here the timer looks again after the event loop's next
 * round of reads (setImmediate runs after it).
 */
function answerWithin(client: Redis, ms: number): void {
  const send = client.sendCommand.bind(client);
  client.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    const [command] = args;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!command.isResolved) command.reject(new Error('Command timed out'));
        }),
      ms,
    );
    const clear = () => clearTimeout(timer);
    command.promise.then(clear, clear);
    return send(...args);
  };
}

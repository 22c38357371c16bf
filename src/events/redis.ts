// The connections of one process to the Redis that every server process of a
// deployment shares: one for commands (event queues, rate limits; commands
// issued in the same turn of the event loop go out in one write), and one
// subscriber, over which the process hears the wake-ups of its waiting polls
// and the cache invalidations of the others. No request holds a connection of
// its own.
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

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

  private constructor(
    url: string,
    /** Put before every key and channel name, so that deployments (and test runs) sharing a Redis never meet. */
    readonly prefix: string,
    onError: (error: Error) => void,
  ) {
    const options = { lazyConnect: true, maxRetriesPerRequest: 3, connectTimeout: 5000 };
    this.command = new Redis(url, { ...options, enableAutoPipelining: true });
    this.subscriber = new Redis(url, options);
    this.command.on('error', onError);
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string, message: string) =>
      this.handlers.get(channel)?.(message),
    );
    // After a reconnection the subscriptions are renewed by the client, but
    // messages published meanwhile were lost: let listeners catch up.
    this.subscriber.on('ready', () => {
      if (this.connectedOnce) for (const handler of this.reconnectHandlers) handler();
      this.connectedOnce = true;
    });
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

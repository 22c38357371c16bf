// Messages to every server process of a deployment, for what each process
// keeps in memory and must forget when it changes elsewhere (cached
// credentials, organization settings). With one process there is nobody to
// tell; with many, the messages go through the shared Redis.
import type { RedisLink } from './redis';

/** Handles one message of a topic; null means messages may have been lost, so forget everything. */
export type BroadcastHandler = (message: string | null) => void;

/** Sends messages to the other server processes. */
export interface Broadcast {
  /** Sends `message` on `topic` to every other process (and, harmlessly, to this one). */
  send(topic: string, message: string): void;
  /** Calls `handler` with each message of `topic` from now on. */
  listen(topic: string, handler: BroadcastHandler): Promise<void>;
}

/** One process: nobody else to tell. */
export const noBroadcast: Broadcast = {
  send: () => undefined,
  listen: async () => undefined,
};

/** Through Redis pub/sub, on the process's one subscriber connection. */
export class RedisBroadcast implements Broadcast {
  constructor(
    private readonly link: RedisLink,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  send(topic: string, message: string): void {
    this.link.publish(`broadcast:${topic}`, message).catch(this.onError);
  }

  async listen(topic: string, handler: BroadcastHandler): Promise<void> {
    await this.link.subscribe(`broadcast:${topic}`, handler);
    this.link.onReconnect(() => handler(null));
  }
}

// Subscribers to something that happened and committed: each runs after the
// commit, on its own, and a failing one is logged without touching the others
// or the action that announced it.

/** Reacts to one committed happening. */
export type Follower<T> = (value: T) => void | Promise<void>;

/** The subscribers of one kind of committed happening. */
export class Followers<T> {
  private readonly list: { name: string; follow: Follower<T> }[] = [];

  constructor(private readonly onError: (name: string, error: unknown) => void) {}

  /** Adds `follow`, named `name` in logs, to run on every announcement. */
  subscribe(name: string, follow: Follower<T>): void {
    this.list.push({ name, follow });
  }

  /** Runs every subscriber with `value`; their failures go to the error handler. */
  announce(value: T): void {
    for (const { name, follow } of this.list) {
      try {
        const done = follow(value);
        if (done) done.catch((error: unknown) => this.onError(name, error));
      } catch (error) {
        this.onError(name, error);
      }
    }
  }
}

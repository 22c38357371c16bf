// Subscribers to something that happened and committed: each runs after the
// commit, on its own, and a failing one is logged without touching the others
// or the action that announced it.

/** Reacts to one committed happening. */
export type Follower<T> = (value: T) => void | Promise<void>;

/** The subscribers of one kind of committed happening. */
export class Followers<T> {
  private readonly list: { name: string; follow: Follower<T> }[] = [];
  /** The subscribers' runs not finished yet. */
  private readonly running = new Set<Promise<void>>();

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
        if (done) this.track(name, done);
      } catch (error) {
        this.onError(name, error);
      }
    }
  }

  /**
   * Resolves once every run started so far has finished, and those they
   * started in turn (a reply of the welcome bot is announced too): a process
   * that stops waits for them before it closes the database.
   */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private track(name: string, done: Promise<void>): void {
    const run: Promise<void> = done
      .catch((error: unknown) => this.onError(name, error))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }
}

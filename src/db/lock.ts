// A readers-writer lock for the SQLite connection. The better-sqlite3 adapter
// has a single connection, so a query issued while an interactive transaction
// is open runs inside that transaction and is rolled back with it. Holding the
// lock exclusively for every transaction, and shared for plain reads, makes
// that impossible.

/** Many readers or one writer at a time, served in arrival order. */
export class ReadWriteLock {
  private readers = 0;
  private writer = false;
  private queue: { exclusive: boolean; grant: () => void }[] = [];

  /** How many callers are waiting for the lock. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `fn` while no writer holds the lock. */
  async shared<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(false);
    try {
      return await fn();
    } finally {
      this.readers--;
      this.drain();
    }
  }

  /** Runs `fn` while nobody else holds the lock. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(true);
    try {
      return await fn();
    } finally {
      this.writer = false;
      this.drain();
    }
  }

  private acquire(exclusive: boolean): Promise<void> {
    if (this.queue.length === 0 && this.canGrant(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((grant) => this.queue.push({ exclusive, grant }));
  }

  private canGrant(exclusive: boolean): boolean {
    return exclusive ? !this.writer && this.readers === 0 : !this.writer;
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.writer = true;
    else this.readers++;
  }

  private drain(): void {
    while (this.queue.length > 0 && this.canGrant(this.queue[0].exclusive)) {
      const next = this.queue.shift()!;
      this.take(next.exclusive);
      next.grant();
    }
  }
}

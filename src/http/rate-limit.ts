// Fixed-window request counters kept in memory, one per key (a user, an
// address, a username). Each server process counts its own requests.
import { rateLimited } from '../errors';

/** What a counted request learned about its window. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** UNIX seconds when the window resets. */
  reset: number;
}

/** Allows `limit` hits per `windowSeconds` for each key. */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
  ) {}

  /** Counts a hit for `key`; throws RATE_LIMIT_HIT once the window is full. */
  hit(key: string, now = Date.now()): RateLimitState {
    const state = this.check(key, now);
    this.windows.get(key)!.count++;
    return { ...state, remaining: state.remaining - 1 };
  }

  /** Throws RATE_LIMIT_HIT if `key` has no hits left, without counting one. */
  check(key: string, now = Date.now()): RateLimitState {
    const length = this.windowSeconds * 1000;
    let window = this.windows.get(key);
    if (!window || now - window.start >= length) {
      if (this.windows.size > 100_000) this.sweep(now);
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    const resetMs = window.start + length;
    if (window.count >= this.limit) throw rateLimited(Math.max(0.001, (resetMs - now) / 1000));
    return {
      limit: this.limit,
      remaining: this.limit - window.count,
      reset: Math.ceil(resetMs / 1000),
    };
  }

  private sweep(now: number): void {
    const length = this.windowSeconds * 1000;
    for (const [key, window] of this.windows)
      if (now - window.start >= length) this.windows.delete(key);
  }
}

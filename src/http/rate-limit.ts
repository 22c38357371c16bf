// Fixed-window request counters, one per key (a user, an address, a
// username): in this process's memory, exact, or, when the server processes
// share a Redis, there, so that all processes spend one budget.
//
// On Redis a process does not spend a request's hit in Redis: it takes a
// lease of hits from the window's budget in one script and spends them in
// memory, asking Redis again once they are spent. A lease is twice the
// process's last one for the key (in this window or the one before; the
// first: 1 hit; at most MAX_LEASE), so a busy key costs a command or two per
// window rather than one per request, and at most 1/LEASE_SHARE of what is
// left of the window's budget (at least 1 hit). The hits leased over all
// processes never exceed the limit, so the deployment never lets through more
// than the limit in a window; a request can be refused while another process
// still holds hits it leased (at most what the other processes leased last,
// each 1/LEASE_SHARE of what was left then), and hits leased and not spent
// lapse with their window. While the budget has more than LEASE_SHARE hits
// left, a lease is a block of them; below that, one hit at a time, so small
// limits (failed logins, tests) count exactly. Once Redis says a window's
// budget is spent, the process refuses the key until that window ends, asking
// Redis nothing more.
//
// X-RateLimit-Remaining, on Redis, is the limit less what Redis had counted
// at this process's last lease, plus its hits leased and not spent yet: exact
// with one process, and with several it leaves out what the others spent
// since that lease (and counts their unspent leases as spent).
//
// If Redis fails, each process falls back to counting in its own memory
// rather than refusing or waving through every request.
//
// In memory, a key's window is a count and an end, forgotten when it is next
// looked at after its end or when the keys are tidied: no timer per key.
import type Redis from 'ioredis';
import { rateLimited } from '../errors';
import type { RedisLink } from '../events/redis';

/** What a counted request learned about its window. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** UNIX seconds when the window resets. */
  reset: number;
}

/** The share of a window's budget left that one lease takes at most. */
export const LEASE_SHARE = 16;
/** The most hits one lease takes. */
export const MAX_LEASE = 1000;
/**
 * Past this many keys, those whose window has ended are forgotten; the next
 * tidy comes when the keys left have doubled, so that many live keys do not
 * cost a scan per new one.
 */
const TIDY_SIZE = 10_000;

/**
 * Lua: a lease of hits of counter KEYS[1] (ARGV: the limit, the window in
 * ms, the most hits wanted, the share): at most the wanted hits and
 * 1/share of what is left (at least 1), none once the budget is spent or
 * when none are wanted (a check). Answers the hits leased, the count after
 * them and the milliseconds left of the window. Commands: GET, PTTL, and
 * INCRBY for a lease, PEXPIRE at a window's start (or on a count found
 * without an expiry, which would otherwise refuse its key for good).
 */
const LEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
local left = tonumber(ARGV[1]) - count
local want = tonumber(ARGV[3])
if left <= 0 or want <= 0 then return {0, count, ttl} end
local n = math.min(want, math.max(1, math.floor(left / tonumber(ARGV[4]))))
count = redis.call('INCRBY', KEYS[1], n)
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {n, count, ttl}
`;

type LeaseClient = Redis & {
  rateLimitLease(
    key: string,
    limit: number,
    windowMs: number,
    want: number,
    share: number,
  ): Promise<[number, number, number]>;
};

/** What this process holds of a key's window on Redis. */
interface Lease {
  /** When the window ends (ms). */
  end: number;
  /** Hits leased and not spent yet. */
  tokens: number;
  /** The window's count in Redis after this process's last lease. */
  count: number;
  /** The hits of this process's last lease. */
  size: number;
}

/** A key's window counted in this process's memory. */
interface Window {
  /** When the window ends (ms). */
  end: number;
  /** Hits counted in it, refused ones included. */
  count: number;
}

/** Windows (or leases) by key, forgetting those that have ended once there are many. */
class Windows<T extends { end: number }> extends Map<string, T> {
  private tidyAt = TIDY_SIZE;

  /** The window of `key`, if it has not ended. */
  current(key: string, now: number): T | undefined {
    const window = this.get(key);
    if (window && window.end <= now) {
      this.delete(key);
      return undefined;
    }
    return window;
  }

  /** Keeps `window` for `key`, first forgetting the ended ones if there are many. */
  keep(key: string, window: T, now: number): void {
    if (this.size >= this.tidyAt) {
      for (const [k, w] of this) if (w.end <= now) this.delete(k);
      this.tidyAt = Math.max(TIDY_SIZE, 2 * this.size);
    }
    this.set(key, window);
  }
}

/** Allows `limit` hits per `windowSeconds` for each key. */
export class RateLimiter {
  /** Counts when there is no Redis, and while Redis fails. */
  private readonly memory = new Windows<Window>();
  private readonly client: LeaseClient | null;
  private readonly prefix: string;
  private readonly leases = new Windows<Lease>();
  /** Leases being taken, by key: a hit meanwhile waits for it. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Reads of a key's count for checks, by key. */
  private readonly reading = new Map<string, Promise<Lease>>();

  /**
   * A limiter named `name` (which keeps its keys apart from other limiters'
   * in Redis), counting in `redis` when it is given.
   */
  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    name: string,
    redis: RedisLink | null = null,
  ) {
    this.prefix = redis ? redis.key(`rl:${name}:`) : '';
    this.client = redis ? (redis.command as LeaseClient) : null;
    if (this.client && !this.client.rateLimitLease)
      this.client.defineCommand('rateLimitLease', { numberOfKeys: 1, lua: LEASE });
  }

  /** Counts a hit for `key`; throws RATE_LIMIT_HIT once the window is full. */
  async hit(key: string): Promise<RateLimitState> {
    if (!this.client) return this.memoryHit(key);
    // A lease doubles the last one, in this window or the one before it.
    const last = this.leases.get(key)?.size ?? 0;
    for (;;) {
      const lease = this.current(key);
      if (lease && lease.tokens > 0) {
        lease.tokens--;
        return this.state(lease);
      }
      if (lease && lease.count >= this.limit) throw refusal(lease.end - Date.now());
      const pending = this.pending.get(key);
      if (pending) {
        await pending;
        continue;
      }
      let failed = false;
      const want = Math.min(MAX_LEASE, Math.max(1, (lease?.size ?? last) * 2));
      const taking = this.take(key, want).then(
        () => undefined,
        () => {
          failed = true;
        },
      );
      this.pending.set(key, taking);
      await taking;
      this.pending.delete(key);
      if (failed) return this.memoryHit(key);
    }
  }

  /** Throws RATE_LIMIT_HIT if `key` has no hits left, without counting one. */
  async check(key: string): Promise<RateLimitState> {
    if (!this.client) return this.memoryCheck(key);
    let lease = this.current(key);
    if (!lease) {
      // Checks of a key at the same moment share one read.
      let reading = this.reading.get(key);
      if (!reading) {
        reading = this.take(key, 0).finally(() => this.reading.delete(key));
        this.reading.set(key, reading);
      }
      try {
        lease = await reading;
      } catch {
        return this.memoryCheck(key);
      }
    }
    if (lease.tokens === 0 && lease.count >= this.limit) throw refusal(lease.end - Date.now());
    return this.state(lease);
  }

  /** This process's lease of `key`'s current window, if any. */
  private current(key: string): Lease | undefined {
    return this.leases.current(key, Date.now());
  }

  /** Leases up to `want` hits of `key` from Redis (none: reads the count); answers what this process then holds. */
  private async take(key: string, want: number): Promise<Lease> {
    const [n, count, ttl] = await this.client!.rateLimitLease(
      this.prefix + key,
      this.limit,
      this.windowSeconds * 1000,
      want,
      LEASE_SHARE,
    );
    const now = Date.now();
    // No key (-2): the window has not begun; it would begin now.
    const end = now + (ttl > 0 ? ttl : this.windowSeconds * 1000);
    const held = this.current(key);
    const lease = {
      end,
      tokens: (held?.tokens ?? 0) + Number(n),
      count: Number(count),
      size: want > 0 ? Number(n) : (held?.size ?? 0),
    };
    if (want > 0 || held) this.leases.keep(key, lease, now);
    return lease;
  }

  private state(lease: Lease): RateLimitState {
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - lease.count + lease.tokens),
      reset: Math.ceil(lease.end / 1000),
    };
  }

  private memoryHit(key: string): RateLimitState {
    const now = Date.now();
    let window = this.memory.current(key, now);
    if (!window) {
      window = { end: now + this.windowSeconds * 1000, count: 0 };
      this.memory.keep(key, window, now);
    }
    window.count++;
    if (window.count > this.limit) throw refusal(window.end - now);
    return this.state({ end: window.end, tokens: 0, count: window.count, size: 0 });
  }

  private memoryCheck(key: string): RateLimitState {
    const now = Date.now();
    const window = this.memory.current(key, now);
    if (!window)
      return {
        limit: this.limit,
        remaining: this.limit,
        reset: Math.ceil(now / 1000) + this.windowSeconds,
      };
    if (window.count >= this.limit) throw refusal(window.end - now);
    return this.state({ end: window.end, tokens: 0, count: window.count, size: 0 });
  }
}

function refusal(msBeforeNext: number): ReturnType<typeof rateLimited> {
  return rateLimited(Math.max(0.001, msBeforeNext / 1000));
}

// Fixed-window request counters, one per key (a user, an address, a
// username): in this process's memory, or, when the server processes share a
// Redis, there, so that all processes spend one budget. If Redis fails, each
// process falls back to counting in its own memory rather than refusing or
// waving through every request.
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { rateLimited } from '../errors';
import type { RedisLink } from '../events/redis';

/** What a counted request learned about its window. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** UNIX seconds when the window resets. */
  reset: number;
}

/** Allows `limit` hits per `windowSeconds` for each key. */
export class RateLimiter {
  private readonly counter: RateLimiterAbstract;

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
    const options = { points: limit, duration: windowSeconds, keyPrefix: name };
    this.counter = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis.command,
          keyPrefix: redis.key(`rl:${name}`),
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  /** Counts a hit for `key`; throws RATE_LIMIT_HIT once the window is full. */
  async hit(key: string): Promise<RateLimitState> {
    let res: RateLimiterRes;
    try {
      res = await this.counter.consume(key);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw refusal(error);
      throw error;
    }
    return this.state(res);
  }

  /** Throws RATE_LIMIT_HIT if `key` has no hits left, without counting one. */
  async check(key: string): Promise<RateLimitState> {
    const res = await this.counter.get(key);
    if (!res)
      return {
        limit: this.limit,
        remaining: this.limit,
        reset: Math.ceil(Date.now() / 1000) + this.windowSeconds,
      };
    if (res.consumedPoints >= this.limit) throw refusal(res);
    return this.state(res);
  }

  private state(res: RateLimiterRes): RateLimitState {
    return {
      limit: this.limit,
      remaining: res.remainingPoints,
      reset: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
    };
  }
}

function refusal(res: RateLimiterRes): ReturnType<typeof rateLimited> {
  return rateLimited(Math.max(0.001, res.msBeforeNext / 1000));
}

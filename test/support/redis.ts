// The Redis of a test run: on the PostgreSQL run, when TEST_REDIS_URL names a
// server, every test server keeps its event queues, rate limits and cache
// invalidations there, under a key prefix of its own, so that parallel runs
// and test files never meet; the SQLite run keeps them in memory.
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

/** Whether this run's servers use Redis. */
export function usesRedis(): boolean {
  return process.env.TEST_DATABASE === 'postgresql' && !!process.env.TEST_REDIS_URL;
}

/** The Redis server of the test run; throws when TEST_REDIS_URL is not set. */
export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is not set');
  return url;
}

/** A key prefix no other test server uses. */
export function newKeyPrefix(): string {
  return `test-${randomBytes(6).toString('hex')}:`;
}

/** The configuration variables that put a test server on Redis (none on the SQLite run). */
export function redisEnv(prefix = newKeyPrefix()): Record<string, string> {
  // The tests that kill a process wait for the others to notice: five seconds, not fifteen.
  return usesRedis()
    ? { REDIS_URL: testRedisUrl(), REDIS_KEY_PREFIX: prefix, EVENT_PROCESS_LIVENESS_SECONDS: '5' }
    : {};
}

/** Removes every key under `prefix`. */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true });
  await client.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    await client.quit();
  }
}

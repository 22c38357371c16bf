// The command timeout of a process's Redis connection: a command Redis does
// not answer fails after two seconds (the request is answered 503), but a
// process that was busy for longer than that, its event loop blocked while
// Redis answered, gets the answer rather than a timeout.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { RedisLink } from '../src/events/redis';
import { TcpProxy } from './support/proxy';
import { newKeyPrefix, testRedisUrl, usesRedis } from './support/redis';

const describeRedis = usesRedis() ? describe : describe.skip;

/** Keeps the event loop busy for `ms`, as a burst of requests does. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describeRedis('the Redis command timeout', () => {
  let proxy: TcpProxy;
  /** Straight to Redis, and through a proxy that can stall (which runs in this process). */
  let direct: RedisLink;
  let proxied: RedisLink;

  beforeAll(async () => {
    proxy = await TcpProxy.start('127.0.0.1', Number(new URL(testRedisUrl()).port || 6379));
    direct = await RedisLink.connect(testRedisUrl(), newKeyPrefix());
    proxied = await RedisLink.connect(proxy.rewrite(testRedisUrl()), newKeyPrefix());
  });
  afterAll(async () => {
    proxy?.restore();
    await direct?.close();
    await proxied?.close();
    await proxy?.close();
  });

  test('a process busy past the timeout gets the answer Redis gave meanwhile', async () => {
    const answer = direct.command.ping('while busy');
    // Commands go out together in the next check phase; this one follows them.
    await new Promise((sent) => setImmediate(sent));
    busyFor(2500);
    await expect(answer).resolves.toBe('while busy');
  });

  test('a command Redis does not answer fails as timed out', async () => {
    proxy.stall();
    try {
      await expect(proxied.command.ping('unanswered')).rejects.toThrow('Command timed out');
    } finally {
      proxy.restore();
    }
  });
});

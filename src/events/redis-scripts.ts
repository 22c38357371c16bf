// The Lua scripts of the Redis queue store: each step on a queue that must
// not interleave with another process's steps runs as one script.
//
// A queue's record is `<prefix>q:{<id>}`, a hash: `user`, `realm`, `opts`
// (the registration options as JSON), `start` (the position in the shared
// log, `<prefix>log`, of the entry announcing it) and `waiter` (the process
// whose poll waits on it, told on `<prefix>wake:<process>` when a poll on
// another process replaces its own). It expires when the
// queue goes unpolled for the idle timeout. Its events are not kept in Redis:
// they are the log's entries after `start` that concern it (stream.ts).
// `<prefix>publishing` is a sorted set of the processes that may hold
// committed events not yet in the log, scored by when that claim lapses.
import type Redis from 'ioredis';
import type { ChainableCommander } from 'ioredis';

/** Each script's source and how many of its arguments are keys. */
const scripts = {
  /**
   * Creates a queue and announces it in the log. KEYS: queue, log. ARGV:
   * user, realm, options JSON, record ms, log length, entry JSON. Answers the
   * announcement's position.
   */
  queueCreate: {
    keys: 2,
    lua: `
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'e', ARGV[6])
redis.call('HSET', KEYS[1], 'user', ARGV[1], 'realm', ARGV[2], 'opts', ARGV[3], 'start', id)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return id`,
  },
  /**
   * Deletes one of a user's queues and announces it in the log. KEYS: queue,
   * log. ARGV: user, log length, entry JSON. Answers 1, or 0 when the user
   * has no such queue.
   */
  queueDelete: {
    keys: 2,
    lua: `
if redis.call('HGET', KEYS[1], 'user') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[3])
return 1`,
  },
  /**
   * Records the process whose poll now waits on a queue, and tells the one
   * whose poll waited before to answer it. KEYS: queue. ARGV: process, wake
   * channel prefix, queue ID. Answers -1 when the queue is gone.
   */
  pollClaim: {
    keys: 1,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local previous = redis.call('HGET', KEYS[1], 'waiter')
if previous == ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'waiter', ARGV[1])
if previous then redis.call('PUBLISH', ARGV[2] .. previous, ARGV[3]) end
return 1`,
  },
  /**
   * Finds the processes whose claim to be publishing lapsed (they died with
   * events perhaps committed and not logged) and logs, once for each, that
   * every queue may have missed events. KEYS: publishing set, log. ARGV: now
   * (ms), log length, entry JSON. Answers how many were found.
   */
  reapPublishers: {
    keys: 2,
    lua: `
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, process in ipairs(dead) do
  redis.call('ZREM', KEYS[1], process)
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[3])
end
return #dead`,
  },
} as const;

/** The name of a script. */
export type ScriptName = keyof typeof scripts;

type Runner = (...args: (string | number)[]) => Promise<unknown>;

/** Makes the scripts callable on `client` and on its pipelines (sent by hash, loaded when missing). */
export function defineScripts(client: Redis): void {
  for (const [name, { keys, lua }] of Object.entries(scripts))
    client.defineCommand(name, { numberOfKeys: keys, lua });
}

/** Runs script `name` on a client (answering its reply) or queues it on a pipeline. */
export function runScript(
  target: Redis | ChainableCommander,
  name: ScriptName,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  // Scripts registered with defineCommand become methods that ioredis does not declare.
  const runner = (target as unknown as Record<ScriptName, Runner>)[name];
  return runner.call(target, ...keys, ...args);
}

// The Lua scripts of the Redis queue store: each step on a queue that must
// not interleave with another process's steps runs as one script.
//
// A queue is two keys, `<prefix>q:{<id>}` (a hash: `user`, `realm`, `opts`
// the registration options as JSON, `public` for all_public_streams queues,
// `last` the last event ID, `waiter` the process whose poll waits on it,
// `p:<process>` the number of that process's last append to it) and `<prefix>q:{<id>}:ev` (a sorted set of
// the events as JSON, scored by event ID). Both expire when the queue goes
// unpolled for the idle timeout. `<prefix>u:<user_id>` and
// `<prefix>rp:<realm_id>` index the queues of a user and a realm's
// all_public_streams queues; they expire after the last of their queues, and
// ids of expired queues are removed from them when publishing finds them gone.
// A process whose poll waits hears of new events on `<prefix>wake:<process>`,
// with the queue ID as message.
//
// `<prefix>proc:<process>` is a process's liveness key, renewed every second
// and expiring a few seconds after the process stops renewing it. The hash
// `<prefix>marks` holds the in-flight marks: field `<process>` (value: the
// same process) while the process may have committed writes whose events are
// not yet in their queues; field `drop:<process>` (value: the process that
// claimed it) while a live process drops the queues a dead one may have owed
// events to.
import type Redis from 'ioredis';
import type { ChainableCommander, ClientContext, Result } from 'ioredis';

/** Each script's source and how many of its arguments are keys. */
const scripts = {
  /** Creates a queue. KEYS: queue, user index, realm index. ARGV: user, realm, options JSON, idle ms, index ms, queue ID, '1' for a public queue. */
  queueCreate: {
    keys: 3,
    lua: `
redis.call('HSET', KEYS[1], 'user', ARGV[1], 'realm', ARGV[2], 'opts', ARGV[3], 'last', -1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[1], 'public', 1)
  redis.call('SADD', KEYS[3], ARGV[6])
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
end
return 1`,
  },
  /**
   * Appends an event: numbers it, trims the queue to its bound and wakes the
   * waiting poll. KEYS: queue, events. ARGV: event JSON (an object), most
   * events, wake channel prefix, queue ID, and for a publication the
   * publishing process and the append's number in it ('' for a heartbeat).
   * The queue remembers the last number of each process, so that an append
   * sent again after a failure that hid its success is not added twice.
   * Answers the event ID, -1 when the queue is gone, -2 when the append was
   * done before.
   */
  queueAppend: {
    keys: 2,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if ARGV[6] and ARGV[6] ~= '' then
  local field = 'p:' .. ARGV[5]
  if tonumber(redis.call('HGET', KEYS[1], field) or '0') >= tonumber(ARGV[6]) then return -2 end
  redis.call('HSET', KEYS[1], field, ARGV[6])
end
local id = redis.call('HINCRBY', KEYS[1], 'last', 1)
redis.call('ZADD', KEYS[2], id, string.sub(ARGV[1], 1, -2) .. ',"id":' .. id .. '}')
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[2]))
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
local waiter = redis.call('HGET', KEYS[1], 'waiter')
if waiter then redis.call('PUBLISH', ARGV[3] .. waiter, ARGV[4]) end
return id`,
  },
  /**
   * A poll: acknowledges events up to an ID and answers those after another
   * (the same, but for a stream's); with nothing to answer and a waiter
   * given, records it (waking the poll it replaces). Refreshes the idle
   * expiry of the queue and its indexes. KEYS: queue, events. ARGV: user,
   * last event ID, waiter ('' for none), idle ms, wait ms, key prefix, queue
   * ID, the ID to answer events after. Answers {0} when the user has no such
   * queue, else {1, events...}.
   */
  queuePoll: {
    keys: 2,
    lua: `
if redis.call('HGET', KEYS[1], 'user') ~= ARGV[1] then return {0} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
local events = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[8], '+inf')
local ttl = tonumber(ARGV[4])
local previous = redis.call('HGET', KEYS[1], 'waiter')
if #events == 0 and ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'waiter', ARGV[3])
  ttl = ttl + tonumber(ARGV[5])
elseif previous then
  redis.call('HDEL', KEYS[1], 'waiter')
end
if previous and previous ~= ARGV[3] then
  redis.call('PUBLISH', ARGV[6] .. 'wake:' .. previous, ARGV[7])
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
local index = tonumber(ARGV[4]) + tonumber(ARGV[5]) + 1000
redis.call('PEXPIRE', ARGV[6] .. 'u:' .. ARGV[1], index)
if redis.call('HEXISTS', KEYS[1], 'public') == 1 then
  redis.call('PEXPIRE', ARGV[6] .. 'rp:' .. redis.call('HGET', KEYS[1], 'realm'), index)
end
table.insert(events, 1, 1)
return events`,
  },
  /**
   * What a woken poll answers. KEYS: queue, events. ARGV: waiter, idle ms,
   * the ID to answer events after. Answers {0} when the queue is gone, {1}
   * when another poll has replaced this one, {2, events...} otherwise; with
   * events, the poll is over and the waiter is cleared.
   */
  queueTake: {
    keys: 2,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
if redis.call('HGET', KEYS[1], 'waiter') ~= ARGV[1] then return {1} end
local events = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[3], '+inf')
if #events > 0 then
  redis.call('HDEL', KEYS[1], 'waiter')
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
table.insert(events, 1, 2)
return events`,
  },
  /**
   * Deletes one of a user's queues and wakes its waiting poll. KEYS: queue,
   * events. ARGV: user, key prefix, queue ID. Answers 1, or 0 when the user
   * has no such queue.
   */
  queueDelete: {
    keys: 2,
    lua: `
if redis.call('HGET', KEYS[1], 'user') ~= ARGV[1] then return 0 end
local realm = redis.call('HGET', KEYS[1], 'realm')
local waiter = redis.call('HGET', KEYS[1], 'waiter')
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', ARGV[2] .. 'u:' .. ARGV[1], ARGV[3])
redis.call('SREM', ARGV[2] .. 'rp:' .. realm, ARGV[3])
if waiter then redis.call('PUBLISH', ARGV[2] .. 'wake:' .. waiter, ARGV[3]) end
return 1`,
  },
  /**
   * Drops queues that missed a publication, so that their next poll answers
   * BAD_EVENT_QUEUE_ID and their clients register again, and wakes their
   * waiting polls. KEYS: none. ARGV: key prefix, how many queue IDs follow,
   * the queue IDs, then index keys (of a user's queues, or of an
   * organization's public queues) whose every queue is dropped. Answers how
   * many queues were dropped.
   */
  queuesDrop: {
    keys: 0,
    lua: `
local prefix = ARGV[1]
local n = tonumber(ARGV[2])
local ids = {}
for i = 3, 2 + n do ids[#ids + 1] = ARGV[i] end
for i = 3 + n, #ARGV do
  for _, id in ipairs(redis.call('SMEMBERS', ARGV[i])) do ids[#ids + 1] = id end
end
local dropped = 0
for _, id in ipairs(ids) do
  local queue = prefix .. 'q:{' .. id .. '}'
  local user = redis.call('HGET', queue, 'user')
  if user then
    local realm = redis.call('HGET', queue, 'realm')
    local waiter = redis.call('HGET', queue, 'waiter')
    redis.call('DEL', queue, queue .. ':ev')
    redis.call('SREM', prefix .. 'u:' .. user, id)
    redis.call('SREM', prefix .. 'rp:' .. realm, id)
    if waiter then redis.call('PUBLISH', prefix .. 'wake:' .. waiter, id) end
    dropped = dropped + 1
  end
end
return dropped`,
  },
  /**
   * Renews this process's liveness key, and sets or clears its in-flight
   * mark. KEYS: liveness key, marks. ARGV: process, liveness ms ('0' deletes
   * the key: a clean stop), '1' to set the mark, '0' to clear it, '' to leave
   * it. Answers 1.
   */
  processMark: {
    keys: 2,
    lua: `
if ARGV[2] == '0' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[2])
end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[1])
elseif ARGV[3] == '0' then
  redis.call('HDEL', KEYS[2], ARGV[1])
end
return 1`,
  },
  /**
   * Claims the marks whose process has no liveness key left (died, or was
   * stopped owing events): each becomes `drop:<process>`, held by the
   * claiming process until it has dropped the queues, so that one process
   * claims each, and a claim whose holder dies in turn is claimed again.
   * KEYS: marks. ARGV: key prefix, claiming process. Answers the claimed
   * marks' new names, with the claims the process holds already (a drop it
   * has not finished).
   */
  marksClaim: {
    keys: 1,
    lua: `
local claimed = {}
local marks = redis.call('HGETALL', KEYS[1])
for i = 1, #marks, 2 do
  local field, holder = marks[i], marks[i + 1]
  if holder == ARGV[2] then
    if string.sub(field, 1, 5) == 'drop:' then claimed[#claimed + 1] = field end
  elseif redis.call('EXISTS', ARGV[1] .. 'proc:' .. holder) == 0 then
    local name = field
    if string.sub(field, 1, 5) ~= 'drop:' then name = 'drop:' .. field end
    redis.call('HDEL', KEYS[1], field)
    redis.call('HSET', KEYS[1], name, ARGV[2])
    claimed[#claimed + 1] = name
  end
end
return claimed`,
  },
} as const;

/** The name of a script. */
export type ScriptName = keyof typeof scripts;

/**
 * The scripts as commands: defineCommand makes each a method of the client and
 * of its pipelines, answering the script's reply (queued, on a pipeline).
 */
type ScriptCommands<Context extends ClientContext> = {
  [Name in ScriptName]: (...keysThenArgs: (string | number)[]) => Result<unknown, Context>;
};

// Declares the methods defineScripts adds, as ioredis documents for defineCommand.
declare module 'ioredis' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members come from ScriptCommands
  interface RedisCommander<Context> extends ScriptCommands<Context> {}
}

/** Makes the scripts callable on `client` and on its pipelines (sent by hash, loaded when missing). */
export function defineScripts(client: Redis): void {
  for (const [name, { keys, lua }] of Object.entries(scripts))
    client.defineCommand(name, { numberOfKeys: keys, lua });
}

/** Runs script `name` on `client`; answers its reply. */
export function runScript(
  client: Redis,
  name: ScriptName,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  return client[name](...keys, ...args);
}

/** Queues script `name` on `pipeline`; its reply comes with the pipeline's. */
export function queueScript(
  pipeline: ChainableCommander,
  name: ScriptName,
  keys: string[],
  args: (string | number)[],
): void {
  pipeline[name](...keys, ...args);
}

// The Lua scripts of the Redis queue store: each step that must not
// interleave with another process's steps runs as one script.
//
// `<prefix>log` is the event log every process reads (a Redis stream). Its
// entries have the stream IDs `<ms>-<seq>` Redis gives them (`*`, so that
// they increase across every process); the event ID of an entry is
// ms * 1000 + seq (redis-log.ts), kept below 1000 per millisecond by the
// append script. An entry's fields: `o` the process that wrote it, `s` that
// process's number for it (so that an append sent again after a failure that
// hid its success is not added twice), `e` its JSON: a publication and its
// recipients, the queues dropped, a queue taken by a process's poll, or the
// queues whose waiting polls get a heartbeat (see LogEntry in redis-log.ts).
// Entries older than the retention are trimmed; `<prefix>trimmed` holds the
// event ID of the last entry trimmed, so that a queue behind it is known to
// have lost events.
//
// A queue is `<prefix>q:{<id>}`, a hash: `user`, `realm`, `opts` the
// registration options as JSON, `reg` the event ID of the log's last entry
// when it was registered (its events are those after it), `holder` the
// process whose poll took it last, `public` for all_public_streams queues.
// `<prefix>seen` is a sorted set of every queue, scored by when it was last
// polled (milliseconds), for idle expiry and counting; `<prefix>u:<user_id>`
// and `<prefix>rp:<realm_id>` index the queues of a user and a realm's
// all_public_streams queues, used only to drop them.
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

/**
 * Lua: appends entry JSON `json` to the log KEYS[1], written by process
 * `origin` as its number `seq`, and answers the stream ID. Redis numbers it
 * `<ms>-<seq>`; one that would reach 1000 in its millisecond (which the
 * event IDs cannot hold) moves to the next millisecond.
 */
const ADD_ENTRY = `
local function add(origin, seq, json)
  local id = redis.call('XADD', KEYS[1], '*', 'o', origin, 's', seq, 'e', json)
  local dash = string.find(id, '-', 1, true)
  if tonumber(string.sub(id, dash + 1)) < 1000 then return id end
  redis.call('XDEL', KEYS[1], id)
  return redis.call('XADD', KEYS[1], (tonumber(string.sub(id, 1, dash - 1)) + 1) .. '-0',
    'o', origin, 's', seq, 'e', json)
end
`;

/**
 * Lua: deletes queues (ids), removing them from their indexes and from
 * `seen`, and appends one log entry naming them, so that every process
 * forgets them and answers their waiting polls. KEYS[1] is the log. Answers
 * how many existed.
 */
const DROP_QUEUES = `
local function drop(prefix, ids, origin)
  local dropped = {}
  for _, id in ipairs(ids) do
    local queue = prefix .. 'q:{' .. id .. '}'
    local fields = redis.call('HMGET', queue, 'user', 'realm')
    if fields[1] then
      redis.call('DEL', queue)
      redis.call('SREM', prefix .. 'u:' .. fields[1], id)
      redis.call('SREM', prefix .. 'rp:' .. fields[2], id)
      dropped[#dropped + 1] = id
    end
    redis.call('ZREM', prefix .. 'seen', id)
  end
  if #dropped > 0 then
    add(origin, '', '{"k":"d","q":' .. cjson.encode(dropped) .. '}')
  end
  return #dropped
end
`;

/** Each script's source and how many of its arguments are keys. */
const scripts = {
  /**
   * Appends a batch of entries to the log, in order. KEYS: log. ARGV: the
   * writing process, the stream ID to look for entries of a failed earlier
   * attempt after ('' on a first attempt), then pairs of the entry's number
   * and its JSON. Entries of this process found after that ID with one of
   * those numbers were added by an attempt whose success was hidden, and are
   * not added again. Answers 1.
   */
  logAppend: {
    keys: 1,
    lua: `${ADD_ENTRY}
local done = {}
if ARGV[2] ~= '' then
  for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '(' .. ARGV[2], '+')) do
    local fields = entry[2]
    if fields[2] == ARGV[1] then done[fields[4]] = true end
  end
end
for i = 3, #ARGV, 2 do
  if not done[ARGV[i]] then add(ARGV[1], ARGV[i], ARGV[i + 1]) end
end
return 1`,
  },
  /**
   * Creates a queue. KEYS: log, queue, user index, realm index, seen,
   * trimmed. ARGV: user, realm, options JSON, queue ID, '1' for a public
   * queue, the time (ms), the creating process. Answers the stream ID of the
   * log's last entry (or of the last trimmed, or 0-0): the queue's
   * registration position.
   */
  queueCreate: {
    keys: 6,
    lua: `
local reg = '0-0'
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then reg = last[1][1] else reg = redis.call('GET', KEYS[6]) or '0-0' end
redis.call('HSET', KEYS[2], 'user', ARGV[1], 'realm', ARGV[2], 'opts', ARGV[3], 'reg', reg,
  'holder', ARGV[7])
redis.call('SADD', KEYS[3], ARGV[4])
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[2], 'public', 1)
  redis.call('SADD', KEYS[4], ARGV[4])
end
redis.call('ZADD', KEYS[5], ARGV[6], ARGV[4])
return reg`,
  },
  /**
   * Reads a queue for a process's first poll of it and, for a poll that
   * waits, makes that process its holder: when another process held it,
   * a log entry tells that one to answer its waiting poll (a newer poll
   * replaces an older one). KEYS: log, queue. ARGV: user, process, '1' to
   * take the queue, queue ID. Answers {} when the user has no such queue,
   * else {options JSON, registration position, stream ID of the entry
   * taking it (or '' when it was not taken or needed no entry)}.
   */
  queueOpen: {
    keys: 2,
    lua: `${ADD_ENTRY}
local fields = redis.call('HMGET', KEYS[2], 'user', 'opts', 'reg', 'holder')
if fields[1] ~= ARGV[1] then return {} end
local taken = ''
if ARGV[3] == '1' and fields[4] ~= ARGV[2] then
  redis.call('HSET', KEYS[2], 'holder', ARGV[2])
  if fields[4] then
    taken = add(ARGV[2], '', '{"k":"t","q":"' .. ARGV[4] .. '","h":"' .. ARGV[2] .. '"}')
  end
end
return {fields[2], fields[3], taken}`,
  },
  /**
   * Deletes one of a user's queues. KEYS: log, queue. ARGV: user, key
   * prefix, queue ID, the deleting process. Answers 1, or 0 when the user
   * has no such queue.
   */
  queueDelete: {
    keys: 2,
    lua: `${ADD_ENTRY}${DROP_QUEUES}
if redis.call('HGET', KEYS[2], 'user') ~= ARGV[1] then return 0 end
return drop(ARGV[2], {ARGV[3]}, ARGV[4])`,
  },
  /**
   * Drops queues, so that their next poll answers BAD_EVENT_QUEUE_ID and
   * their clients register again: those named, those of organizations
   * (every queue whose \`realm\` is one of them, looked for among all the
   * queues: rare, after a publication to a whole organization was given up),
   * those of index keys (of a user's queues, or of an organization's public
   * queues), and, given a time, those not polled since it (idle expiry, at
   * most 1000 a call). KEYS: log. ARGV: key prefix, the dropping process,
   * idle bound ('' for none), how many queue IDs follow, the queue IDs, how
   * many realm IDs follow, the realm IDs, then index keys. Answers how many
   * queues were dropped.
   */
  queuesDrop: {
    keys: 1,
    lua: `${ADD_ENTRY}${DROP_QUEUES}
local prefix = ARGV[1]
local n = tonumber(ARGV[4])
local ids = {}
for i = 5, 4 + n do ids[#ids + 1] = ARGV[i] end
local m = tonumber(ARGV[5 + n])
if m > 0 then
  local realms = {}
  for i = 6 + n, 5 + n + m do realms[ARGV[i]] = true end
  for _, id in ipairs(redis.call('ZRANGE', prefix .. 'seen', 0, -1)) do
    local realm = redis.call('HGET', prefix .. 'q:{' .. id .. '}', 'realm')
    if realm and realms[realm] then ids[#ids + 1] = id end
  end
end
for i = 6 + n + m, #ARGV do
  for _, id in ipairs(redis.call('SMEMBERS', ARGV[i])) do ids[#ids + 1] = id end
end
if ARGV[3] ~= '' then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', prefix .. 'seen', '-inf', '(' .. ARGV[3],
      'LIMIT', 0, 1000)) do
    ids[#ids + 1] = id
  end
end
if #ids == 0 then return 0 end
return drop(prefix, ids, ARGV[2])`,
  },
  /**
   * Trims the log of the entries before a stream ID, remembering the last
   * one trimmed. KEYS: log, trimmed. ARGV: the stream ID. Answers how many
   * entries were trimmed.
   */
  logTrim: {
    keys: 2,
    lua: `
local last = redis.call('XREVRANGE', KEYS[1], '(' .. ARGV[1], '-', 'COUNT', 1)
if #last == 0 then return 0 end
redis.call('SET', KEYS[2], last[1][1])
return redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])`,
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

/**
 * The Lua scripts of the Redis rate limiter. Each runs atomically on the server, so every node sees
 * one order of takes per key. Numbers cross as '%.17g' strings: Redis turns a Lua number reply into
 * an integer, which would truncate a caller's fractional instant.
 */
import { createHash } from 'node:crypto'

export interface LuaScript {
  lua: string
  sha: string
}

const script = (lua: string): LuaScript => ({ lua, sha: createHash('sha1').update(lua).digest('hex') })

// Redis's own clock in ms; scripts replicate their effects (Redis ≥ 5), so TIME before a write is allowed.
const SERVER_NOW = `
local function server_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- The takes of one call mostly share an instant (Redis's clock is read once per call): its text is
-- formatted once. Zero is formatted each time, so that -0 keeps its sign.
local num_x, num_s
local function num(x)
  if x ~= num_x or x == 0 then num_x, num_s = x, string.format('%.17g', x) end
  return num_s
end
`

/**
 * A key's log is a list of unit stamps, oldest first (one element per unit, so equal stamps need no
 * uniqueness trick). The takes of one script call read it through `log_of` and change it only in
 * the script's memory: stamps dropped from its head, stamps added at its tail, or the whole log
 * forgotten. `save` writes each log back once at the end (DEL, LTRIM, RPUSH, PEXPIRE), so a command
 * carrying many takes of one key reads its head once and writes it once, where each take would
 * otherwise make its own half-dozen list commands. The script is atomic, so no one sees the log
 * between its takes.
 */
const LOG = `
local logs, saved = {}, {}
-- How many stamps past the one asked for a sequential read of a log's head fetches.
local ahead = math.min(#KEYS - 1, 63)
local function log_of(key)
  local l = logs[key]
  if l == nil then
    l = { key = key, stored = redis.call('LLEN', key), dropped = 0, read = {}, added = {}, first = 1, cleared = false, ttl = nil }
    logs[key] = l
    saved[#saved + 1] = l
  end
  return l
end
local function size_of(l) return l.stored - l.dropped + #l.added - l.first + 1 end
-- The stamp at position i (from 0) of the log as the script sees it.
local function stamp(l, i)
  local listed = l.stored - l.dropped
  if i >= listed then return l.added[l.first + i - listed] end
  local j = l.dropped + i
  local v = l.read[j]
  if v == nil and ahead > 0 and l.read[j - 1] ~= nil then
    -- The head is being read stamp after stamp: read ahead, about a stamp for each take to come.
    local chunk = redis.call('LRANGE', l.key, j, j + ahead)
    for k = 1, #chunk do l.read[j + k - 1] = tonumber(chunk[k]) end
    v = l.read[j]
  elseif v == nil then
    v = tonumber(redis.call('LINDEX', l.key, j))
    l.read[j] = v
  end
  return v
end
local function drop(l, n)
  local listed = math.min(n, l.stored - l.dropped)
  l.dropped = l.dropped + listed
  l.first = l.first + n - listed
end
local function clear(l)
  l.stored, l.dropped, l.read, l.added, l.first, l.cleared = 0, 0, {}, {}, 1, true
end
local function save(l)
  if l.cleared then redis.call('DEL', l.key) end
  if l.dropped > 0 then redis.call('LTRIM', l.key, l.dropped, -1) end
  local i = l.first
  while i <= #l.added do
    local last = math.min(#l.added, i + 999)
    local batch = {}
    for k = i, last do batch[#batch + 1] = num(l.added[k]) end
    redis.call('RPUSH', l.key, unpack(batch))
    i = last + 1
  end
  if l.ttl then redis.call('PEXPIRE', l.key, l.ttl) end
end
local function save_all() for _, l in ipairs(saved) do save(l) end end
-- The instant of a take: the caller's, or ('') Redis's clock, read once per script call.
local server_at
local function instant(given)
  if given ~= '' then return tonumber(given) end
  server_at = server_at or server_now()
  return server_at
end
`

/**
 * take(l, limit, cost, at, ttl) on log l: returns {ok, remaining, resetAt, retryAfterMs ('inf' when
 * never), at}; the log outlives its newest unit by ttl ms. The same algorithm as the memory
 * limiter's SlidingLog, step for step.
 */
const TAKE_FN = `
local function take(l, limit, cost, at, ttl)
  local now = at
  local size = size_of(l)
  if size > 0 then
    local newest = stamp(l, size - 1)
    if newest - at >= 1000 then
      -- Units stamped a second or more after at: the clock was set back; forget them.
      clear(l)
      size = 0
    elseif newest > at then
      -- Calls that reached the limiter out of order: this one counts from the newest stamp.
      now = newest
    end
  end
  -- The oldest 'gone' units left the window (now - 1000, now]; they are dropped only when a unit is
  -- taken, as the memory limiter does.
  local gone = 0
  while gone < size and stamp(l, gone) <= now - 1000 do gone = gone + 1 end
  local held = size - gone
  -- A lowered limit keeps every unit: a limit raised again within the second must still count them.
  if held + cost <= limit then
    if gone > 0 then drop(l, gone) end
    for i = 1, cost do l.added[#l.added + 1] = now end
    size = held + cost
    if size > 0 then l.ttl = ttl end
    local remaining = limit - size
    local reset = at
    if remaining <= 0 and size > 0 then reset = stamp(l, 0) + 1000 end
    return {1, remaining, num(reset), '0', num(at)}
  end
  -- The wait counts from the caller's instant: a take at at + retry is admitted.
  local retry = 'inf'
  if cost <= limit then retry = num(stamp(l, gone + held + cost - limit - 1) + 1000 - at) end
  local reset = at
  if held >= limit then reset = stamp(l, gone + held - limit) + 1000 end
  return {0, math.max(0, limit - held), num(reset), retry, num(at)}
end
`

/**
 * take, for one call or several at once (the takes a node gathered in one turn of its event loop,
 * sent as one command): KEYS[i] and ARGV[4i-3..4i] the log, limit, cost, caller instant ('' =
 * Redis's clock) and idle expiry in ms of the i-th take, taken in that order. Returns one string: the
 * takes' replies in order, each its five fields joined by spaces, joined by ';' (one bulk string for
 * the node to split, rather than an array of arrays to decode element by element).
 */
export const TAKE = script(`${SERVER_NOW}${LOG}${TAKE_FN}
local out = {}
for i = 1, #KEYS do
  local o = (i - 1) * 4
  out[i] = table.concat(take(log_of(KEYS[i]), tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2]), instant(ARGV[o + 3]), ARGV[o + 4]), ' ')
end
save_all()
return table.concat(out, ';')
`)

/**
 * lease: KEYS[1] a sorted set of lease ids scored by the Redis instant they lapse. ARGV: limit,
 * ttl ms, lease id. Lapsed leases are dropped first; returns 1 when the lease was taken, else 0.
 * The key itself expires when its last lease would lapse.
 */
const LEASE_BODY = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local now = server_now()
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now + ttl, ARGV[3])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, math.max(1, math.ceil(tonumber(last[2]) - now)))
return 1
`
export const LEASE = script(SERVER_NOW + LEASE_BODY)

/**
 * heartbeat: KEYS[1] a sorted set of node ids scored by the Redis instant they lapse. ARGV: node
 * id, ttl ms. Renews this node and returns how many nodes are live.
 */
export const HEARTBEAT = script(`${SERVER_NOW}
local key = KEYS[1]
local ttl = tonumber(ARGV[2])
local now = server_now()
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
redis.call('ZADD', key, now + ttl, ARGV[1])
redis.call('PEXPIRE', key, ttl)
return redis.call('ZCARD', key)
`)

/**
 * take then lease, in one call (a search takes its rate units and one of its account's simultaneous
 * searches in one round trip): KEYS[1] and ARGV[1..4] as take's, KEYS[2] and ARGV[5..7] as lease's.
 * The lease is asked for only when the take is admitted. Returns take's reply with a sixth element:
 * 1 when the lease was taken, else 0.
 */
export const TAKE_AND_LEASE = script(`${SERVER_NOW}${LOG}${TAKE_FN}
local function lease()${LEASE_BODY.replaceAll('KEYS[1]', 'KEYS[2]').replace(/ARGV\[(\d)\]/g, (_, n: string) => `ARGV[${Number(n) + 4}]`)}end
local r = take(log_of(KEYS[1]), tonumber(ARGV[1]), tonumber(ARGV[2]), instant(ARGV[3]), ARGV[4])
save_all()
if tonumber(r[1]) == 1 then r[6] = lease() else r[6] = 0 end
return r
`)

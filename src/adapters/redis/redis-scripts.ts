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
local function num(x) return string.format('%.17g', x) end
`

/**
 * take: KEYS[1] the key's log, a list of unit stamps oldest first (one element per unit, so equal
 * stamps need no uniqueness trick). ARGV: limit, cost, caller instant ('' = Redis's clock), idle
 * expiry in ms. Returns {ok, remaining, resetAt, retryAfterMs ('inf' when never), now}. The same
 * algorithm as the memory limiter's SlidingLog, step for step.
 */
const TAKE_BODY = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local at
if ARGV[3] == '' then at = server_now() else at = tonumber(ARGV[3]) end
local now = at
local size = redis.call('LLEN', key)
if size > 0 then
  local newest = tonumber(redis.call('LINDEX', key, -1))
  if newest - at >= 1000 then
    -- Units stamped a second or more after at: the clock was set back; forget them.
    redis.call('DEL', key)
    size = 0
  elseif newest > at then
    -- Calls that reached the limiter out of order: this one counts from the newest stamp.
    now = newest
  end
end
-- The oldest 'gone' units left the window (now - 1000, now]; they are dropped only when a unit is
-- taken, as the memory limiter does.
local gone = 0
while gone < size and tonumber(redis.call('LINDEX', key, gone)) <= now - 1000 do gone = gone + 1 end
local held = size - gone
-- A lowered limit keeps every unit: a limit raised again within the second must still count them.
if held + cost <= limit then
  if gone > 0 then redis.call('LTRIM', key, gone, -1) end
  size = held
  local stamp = num(now)
  local left = cost
  while left > 0 do
    local n = math.min(left, 1000)
    local batch = {}
    for i = 1, n do batch[i] = stamp end
    redis.call('RPUSH', key, unpack(batch))
    left = left - n
  end
  size = size + cost
  if size > 0 then redis.call('PEXPIRE', key, ARGV[4]) end
  local remaining = limit - size
  local reset = at
  if remaining <= 0 and size > 0 then reset = tonumber(redis.call('LINDEX', key, 0)) + 1000 end
  return {1, num(remaining), num(reset), '0', num(at)}
end
-- The wait counts from the caller's instant: a take at at + retry is admitted.
local retry = 'inf'
if cost <= limit then
  retry = num(tonumber(redis.call('LINDEX', key, gone + held + cost - limit - 1)) + 1000 - at)
end
local reset = at
if held >= limit then reset = tonumber(redis.call('LINDEX', key, gone + held - limit)) + 1000 end
return {0, num(math.max(0, limit - held)), num(reset), retry, num(at)}
`
export const TAKE = script(SERVER_NOW + TAKE_BODY)

/**
 * take, for several calls at once (the takes a node gathered in one turn of its event loop, sent as
 * one command): KEYS[i] and ARGV[4i-3..4i] as take's KEYS[1] and ARGV[1..4], taken in that order.
 * Returns the list of take's replies.
 */
export const TAKE_MANY = script(`${SERVER_NOW}
local function take(KEY, ARG)${TAKE_BODY.replaceAll('KEYS[1]', 'KEY').replace(/ARGV\[(\d)\]/g, 'ARG[$1]')}end
local out = {}
for i = 1, #KEYS do
  local o = (i - 1) * 4
  out[i] = take(KEYS[i], { ARGV[o + 1], ARGV[o + 2], ARGV[o + 3], ARGV[o + 4] })
end
return out
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
export const TAKE_AND_LEASE = script(`${SERVER_NOW}
local function take()${TAKE_BODY}end
local function lease()${LEASE_BODY.replaceAll('KEYS[1]', 'KEYS[2]').replace(/ARGV\[(\d)\]/g, (_, n: string) => `ARGV[${Number(n) + 4}]`)}end
local r = take()
if tonumber(r[1]) == 1 then r[6] = lease() else r[6] = 0 end
return r
`)

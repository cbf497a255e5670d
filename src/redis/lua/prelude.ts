/**
 * The Lua every script of the shared limiter starts with: read the configuration hash, compare
 * configurations, read the time, detect lost state, and (at the end) write the clocks back with
 * the expiry and build the reply header. Kept as a TypeScript string so that the build ships it.
 *
 * KEYS: [1] the configuration hash, [2] the overall log, [2+j] for j in 1..k the log of scope j and
 * [2+k+j] its state: the configuration hash again for a channel (its state lives there, in fields
 * named after it), a hash of its own for a key (keyed limits: created on demand, expiring). Only the
 * scopes this call touches; every key carries the limiter's hash tag.
 * ARGV: [1] the declared configuration JSON, [2] a random nonce (the epoch if this call creates
 * the state; part of every member it adds), [3] the epoch the caller expects ('' = none),
 * [4] the highest sequence number the caller has seen, [5] the rates version it knows,
 * [6] the test time in µs (read only when the stored configuration says test), [7] the notice
 * channel, [8] k, [9..8+k] the scopes: 'c' .. a channel's name or 'k' .. a key's; the script's own
 * arguments follow.
 *
 * Rates in dimensions (declared.dims; each rate `[limit, µs, d]`): a cost is one number per dimension
 * ('c1,c2,...' in arguments and members), and scope j keeps one log per dimension d (`logKey`), named from
 * its own log key; a grant is in the logs of the dimensions it costs something in (`dimsOf`), each with that
 * dimension's cost in its running totals. Without dimensions d is 0, the scope's own log, and a cost a number.
 *
 * Times are integer microseconds of Redis TIME (exact in Lua's doubles), clamped so that they never
 * run backwards for a limiter. Every time that leaves a script is a duration from that now.
 */
export const PRELUDE = `
-- Redis 5 and 6 replicate a script that read TIME only by its effects when asked; 7 always does.
if redis.replicate_commands then redis.replicate_commands() end
local cfgKey = KEYS[1]
local declaredJson = ARGV[1]
local nonce = ARGV[2]
local expectEpoch = ARGV[3]
local expectSeq = tonumber(ARGV[4]) or 0
local knownVersion = ARGV[5]
local noticeChannel = ARGV[7]
local scopeCount = tonumber(ARGV[8])
local HEADER = 8 + scopeCount
local declared = cjson.decode(declaredJson)

local function fmt(x) return string.format('%.17g', x) end
local function int(x) return string.format('%.0f', x) end

local f = redis.call('HMGET', cfgKey, 'd', 'e', 'q', 'v', 'L', 'now', 'last', 'p', 'qu', 'lost', 'c')
if f[1] and f[1] ~= declaredJson then
  return redis.error_reply('XT_CONFLICT ' .. f[1])
end

local now
if declared.test then
  now = tonumber(ARGV[6])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
-- A failover to a host whose clock is behind, or a clock step, must not reopen windows.
if f[6] and tonumber(f[6]) > now then now = tonumber(f[6]) end

local declaredChannels = {}
for _, entry in ipairs(declared.channels) do declaredChannels[entry[1]] = entry[2] end

-- Scope j: 0 is overall, 1..k are the channels and keys this call names. A channel's state is in the
-- configuration hash, in fields suffixed with its name; a key's in its own hash, in plain fields.
local function scopeIsKey(j) return j > 0 and string.byte(ARGV[8 + j], 1) == 107 end
local function scopeName(j) return string.sub(ARGV[8 + j], 2) end
local function stateKey(j) if j > 0 then return KEYS[2 + scopeCount + j] end return cfgKey end
local function stateField(j, base)
  if j > 0 and not scopeIsKey(j) then return base .. ':' .. scopeName(j) end
  return base
end

-- A grant is sent up to this long after its time (the grace): a sliding window spaces grants by
-- interval + grace and keeps them that much longer, so that the sends, not only the grants, keep the limit.
local grace = declared.grace or 0
local function longestInterval(rates, acc)
  for _, r in ipairs(rates) do if r[2] + grace > acc then acc = r[2] + grace end end
  return acc
end

local created = false
local lostNow = 0
local e, q, v, L, last, p, qu, lost, c
if f[2] then
  e = f[2]; q = tonumber(f[3]); v = tonumber(f[4]); L = tonumber(f[5])
  last = tonumber(f[7]); p = tonumber(f[8]); qu = tonumber(f[9]); lost = f[10]; c = tonumber(f[11])
else
  created = true
  e = nonce; q = 0; v = 0; last = 0; p = 0; qu = 0; lost = ''; c = now
  L = longestInterval(declared.rates, 0)
  for _, entry in ipairs(declared.channels) do L = longestInterval(entry[2], L) end
  if declared.keys then L = longestInterval(declared.keys, L) end
end

-- A grant's member is time:cost:seq:nonce.
local function timeOf(member) return tonumber(string.match(member, '^([^:]+)')) end
-- The lowest rank in a log whose grant is later than t (the log's size when none is): O(log n) reads.
local function firstRankAfter(key, t)
  local lo, hi = 0, redis.call('ZCARD', key)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if timeOf(redis.call('ZRANGE', key, mid, mid)[1]) > t then hi = mid else lo = mid + 1 end
  end
  return lo
end
local function costOf(member) return tonumber(string.match(member, '^[^:]+:([^:]+)')) end

-- Rates in dimensions: log d of scope j (d = 0: its own log, rates without dimensions).
local dimCount = 0
if declared.dims then dimCount = #declared.dims end
local logBase = string.sub(cfgKey, 1, #cfgKey - 3)
local function logKey(j, d)
  if d == 0 then return KEYS[2 + j] end
  return logBase .. 'd' .. d .. ':' .. string.sub(KEYS[2 + j], #logBase + 1)
end
local function parseCosts(text)
  if dimCount == 0 then return tonumber(text) end
  local costs = {}
  for value in string.gmatch(text, '[^,]+') do costs[#costs + 1] = tonumber(value) end
  return costs
end
local function costFor(costs, d)
  if d == 0 then return costs end
  return costs[d] or 0
end
local function dimsOf(costs)
  if dimCount == 0 then return { 0 } end
  local list = {}
  for d = 1, dimCount do if (costs[d] or 0) > 0 then list[#list + 1] = d end end
  return list
end
local function costsOfMember(member) return parseCosts(string.match(member, '^[^:]+:([^:]+)')) end
local function rateDim(rate) return rate[3] or 0 end
local function newestField(d) if d == 0 then return 't' end return 'td' .. d end

-- Scope s's log (key, dimension d) lost grants: its newest time is stored again, and the overall one is the floor
-- for new grants. An emptied log holds nothing to lose: no newest time, so its absence is not taken for a loss.
local function refreshNewest(s, key, d)
  d = d or 0
  local top = redis.call('ZRANGE', key, -1, -1)
  local newest = 0
  if top[1] then
    newest = timeOf(top[1])
    redis.call('HSET', stateKey(s), stateField(s, newestField(d)), int(newest))
  else
    redis.call('HDEL', stateKey(s), stateField(s, newestField(d)))
  end
  if s == 0 and d == 0 then last = newest end
  if s == 0 and d > 0 then
    last = 0
    for dd = 1, dimCount do
      local other = redis.call('ZRANGE', logKey(0, dd), -1, -1)
      if other[1] and timeOf(other[1]) > last then last = timeOf(other[1]) end
    end
  end
end

-- Whatever was lost may include grants up to the reserve-ahead bound past the loss, each holding
-- its windows for one longest interval: nothing is granted until all of them have passed.
local function quarantine()
  local untilTime = now + declared.ahead + L
  if untilTime > qu then qu = untilTime end
  lostNow = 1
end

local function remembersLoss(epoch)
  for seen in string.gmatch(lost, '%S+') do if seen == epoch then return true end end
  return false
end
local function rememberLoss(epoch)
  local kept = { epoch }
  for seen in string.gmatch(lost, '%S+') do if #kept < 4 then kept[#kept + 1] = seen end end
  lost = table.concat(kept, ' ')
end

-- The caller saw this limiter's state recently enough that it cannot have expired by itself:
-- missing, replaced or rolled back, it was lost.
if expectEpoch ~= '' then
  if expectEpoch ~= e then
    if not remembersLoss(expectEpoch) then
      quarantine()
      rememberLoss(expectEpoch)
    end
  elseif expectSeq > q then
    quarantine()
    q = expectSeq
  end
end

-- The keys' template in force: set by a control call ('rk'), else the declared one.
local templateCache
local function templateRates()
  if templateCache then return templateCache end
  local stored = redis.call('HGET', cfgKey, 'rk')
  if stored then templateCache = cjson.decode(stored) else templateCache = declared.keys end
  return templateCache
end

-- The rates in force for scope j (0: overall), cached for this call: its own, else the declared ones
-- (a key's: the template's).
local scopeRatesCache = {}
local function ratesField(j) return stateField(j, 'r') end
local function scopeRates(j)
  local cached = scopeRatesCache[j]
  if cached then return cached end
  local stored = redis.call('HGET', stateKey(j), ratesField(j))
  local rates
  if stored then rates = cjson.decode(stored)
  elseif j == 0 then rates = declared.rates
  elseif scopeIsKey(j) then rates = templateRates()
  else rates = declaredChannels[scopeName(j)] end
  scopeRatesCache[j] = rates
  return rates
end
`;

/**
 * Writes the clocks and state fields back, extends every key's life to cover the state it must
 * keep (never shortening it), and builds the reply header:
 * { epoch, seq, version, horizon µs, paused µs, quarantine µs, lost now (0/1), pause id, quarantine id,
 *   overall rates JSON ('' for the declared ones, '=' for "as you know"), the keys' template JSON ('' for
 *   the declared one), channel override count n, n pairs of (channel, rates JSON) }; the rates only when
 *   the caller's known version differs (a key's own rates are never in it: there may be any number). The ids are the end times as opaque strings: they
 * tell one pause from another (and a resume from an expiry), never a time to a client.
 */
export const EPILOGUE = `
local function extendLife(key, ms)
  local current = redis.call('PTTL', key)
  if current >= -1 and current < ms then redis.call('PEXPIRE', key, ms) end
end

-- The state must live until the last grant has left its longest window (a token bucket's next
-- free time is at most one interval past its last grant), and while a pause or quarantine holds.
local horizon = last + L
if p > horizon then horizon = p end
if qu > horizon then horizon = qu end
horizon = horizon - now
if horizon < 0 then horizon = 0 end
-- Past the horizon plus this margin a key may expire: more than a caller's slack for round trips and
-- clock-rate drift, so an expiry is never mistaken for a loss.
local lifeMs = math.ceil((horizon + 10000000 + horizon / 100) / 1000)
if declared.test then lifeMs = 600000 end

redis.call('HSET', cfgKey, 'd', declaredJson, 'e', e, 'q', int(q), 'v', int(v), 'L', int(L),
  'now', fmt(now), 'last', fmt(last), 'p', fmt(p), 'qu', fmt(qu), 'lost', lost, 'c', fmt(c))
extendLife(cfgKey, lifeMs)
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then extendLife(KEYS[i], lifeMs) end
end
for j = 0, scopeCount do
  for d = 1, dimCount do
    if redis.call('EXISTS', logKey(j, d)) == 1 then extendLife(logKey(j, d), lifeMs) end
  end
end

local function remaining(t) if t > now then return math.ceil(t - now) end return 0 end
local reply = { e, q, v, math.ceil(horizon), remaining(p), remaining(qu), lostNow, int(p), int(qu) }
if knownVersion == e .. ':' .. v then
  reply[#reply + 1] = '='
  reply[#reply + 1] = ''
  reply[#reply + 1] = 0
else
  reply[#reply + 1] = redis.call('HGET', cfgKey, 'r') or ''
  reply[#reply + 1] = redis.call('HGET', cfgKey, 'rk') or ''
  local overrides = {}
  for _, entry in ipairs(declared.channels) do
    local stored = redis.call('HGET', cfgKey, 'r:' .. entry[1])
    if stored then
      overrides[#overrides + 1] = entry[1]
      overrides[#overrides + 1] = stored
    end
  end
  reply[#reply + 1] = #overrides / 2
  for _, item in ipairs(overrides) do reply[#reply + 1] = item end
end
`;

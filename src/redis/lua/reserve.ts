import { AUDIT_TRAIL } from './audit-trail.js';
import { FAIR_TAGS } from './fair-tags.js';
import { EPILOGUE, PRELUDE } from './prelude.js';
import { RETIME_BODY } from './retime.js';

/**
 * One decision for a whole batch, in arrival order: each request is granted the earliest time at
 * which it fits every rate of its scopes (overall, and its channel's), never before the previous
 * grant (FIFO by arrival at Redis), never during a pause or quarantine, and at most `ahead` past
 * now; the grant is recorded before the next request is considered.
 *
 * Sliding window: each scope keeps a log of its grants as a sorted set whose score is the running
 * total of cost (member `time:cost:seq:nonce`). Grants are appended in time order, so the running
 * total orders them by time too, and "the newest grant at which the cost, counted back from the
 * newest, first exceeds limit - cost" is one ZRANGEBYSCORE ... LIMIT 0 1: O(log n) per rate, as in
 * the local DeliveryLog. A new grant at t then finds at most limit - cost in (t - T, t] for every
 * rate, and since no grant is later than it, no window [s, s + T) ever holds more than the limit.
 * Grants older than the scope's longest interval can never be in a window again and are trimmed;
 * what is left is at most the limits' worth over one longest interval plus the reserve-ahead span,
 * so memory is bounded by the limits, not by traffic. (Trimming by count, the newest `limit`, would
 * be smaller but wrong: a release can bring older grants back into the count.)
 *
 * Token bucket: per scope and rate, Guava SmoothBursty's nextFree and storedPermits, with the same
 * arithmetic as src/policies/smooth-rate.ts (pre-consumption: a request goes at nextFree, its cost
 * pushes nextFree on).
 *
 * Keys (keyed limits) are scopes like channels, with the template's rates (or their own): a key's log
 * and its state hash are created by its first grant and expire with the rest. A key's token buckets
 * start empty at its first grant, as a local key's do (a channel's start with the state).
 *
 * Per-line ('lines' before the pairs: a throttler with per-channel ordering): no line waits behind
 * another's backlog. A request is not floored at the previous grant, only at each of its logs' newest
 * (every log stays in time order); and one whose own channel or key cannot take it now is reserved
 * nothing and told when it can (kind 5), as is every later request of its line in the call ('fairlines', for weighted fairness: held by
its rates only, not by its newest grant lying ahead of now, so a line obtains more than one grant per call). So a
 * line's grants are never placed ahead of now by its own limits, and what another line finds ahead of
 * it in the overall log is only what the overall rate itself spaced out (at most `ahead`).
 *
 * Script ARGV after the header: optionally 'ahead' and a bound in µs below the reserve-ahead one for this
 * call, then optionally 'lines', then pairs of (scope j: 0 none, else the channel or
 * key ARGV[8 + j]; cost); or 'retime' and the grants to move (retime.ts); or 'clock', answered with
 * Redis' now (µs) alone, so that a throttler knows Redis' clock, and has the script on its connection,
 * before its first grants. Reply: the header, then per request a triple (kind, µs, member): kind 0
 * granted (µs = wait), 1/2/3 later for reserve-ahead/paused/quarantine (µs = retry after), 4 refused
 * (µs = the smallest limit in force, which the cost exceeds), 5 later for its own line (µs = when its
 * channel or key can take it).
 */
export const RESERVE_SCRIPT = `${PRELUDE}${AUDIT_TRAIL}
local results = {}
if ARGV[HEADER + 1] == 'clock' then
-- Redis' now alone: a process learns its clock before it asks for grants (reserve-calls.ts).
results[1] = int(now)
elseif ARGV[HEADER + 1] == 'retime' then
${RETIME_BODY}
else
local tokenBucket = declared.strategy == 'token-bucket'
local ahead = declared.ahead

-- Sliding window: newest running total and time of a scope's log, cached; a log missing while
-- the configuration says it held a grant still inside its windows was evicted: that is a loss.
local logs = {}
local function scopeLog(j, d)
  local id = j .. ':' .. d
  local log = logs[id]
  if log then return log end
  local top = redis.call('ZRANGE', logKey(j, d), -1, -1, 'WITHSCORES')
  if top[1] then
    log = { total = tonumber(top[2]), newest = timeOf(top[1]) }
  else
    log = { total = 0, newest = 0 }
    local held = redis.call('HGET', stateKey(j), stateField(j, newestField(d)))
    if held and not created and tonumber(held) + L > now then quarantine() end
  end
  log.j = j; log.d = d
  logs[id] = log
  return log
end

-- The earliest time >= floor at which costs fit every rate of scope j, after the newest grant of
-- every log of j that the grant goes into (ratesOnly: not floored at those newest grants).
local function earliestInLog(j, costs, floor, ratesOnly)
  local earliest = floor
  if not ratesOnly then
    for _, d in ipairs(dimsOf(costs)) do
      local log = scopeLog(j, d)
      if log.newest > earliest then earliest = log.newest end
    end
  end
  for _, rate in ipairs(scopeRates(j)) do
    local d = rateDim(rate)
    local cost = costFor(costs, d)
    local threshold = 0
    if cost > 0 then threshold = scopeLog(j, d).total - (rate[1] - cost) end
    if threshold > 0 then
      local hit = redis.call('ZRANGEBYSCORE', logKey(j, d), threshold, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
      if hit[1] and tonumber(hit[2]) - costFor(costsOfMember(hit[1]), d) < threshold then
        local free = timeOf(hit[1]) + rate[2] + grace
        if free > earliest then earliest = free end
      end
    end
  end
  return earliest
end

-- Token bucket: one state per scope and rate, cached.
local buckets = {}
local function maxPermitsOf(rate)
  if declared.maxBurst == cjson.null or declared.maxBurst == nil then return rate[1] end
  return declared.maxBurst
end
local function bucket(j, i)
  local key = j .. ':' .. i
  local b = buckets[key]
  if b then return b end
  local stored = redis.call('HGET', stateKey(j), stateField(j, 'b' .. i))
  if stored then
    local nextFree, permits = string.match(stored, '^(%S+) (%S+)$')
    b = { nextFree = tonumber(nextFree), stored = tonumber(permits) }
    -- A key's bucket kept across a change of the template: never more stored than the new rate allows.
    local rate = scopeRates(j)[i]
    if rate and b.stored > maxPermitsOf(rate) then b.stored = maxPermitsOf(rate) end
  elseif scopeIsKey(j) then
    -- A key's bucket starts empty at its first grant: a key that expired comes back with no burst.
    b = { nextFree = now, stored = 0 }
  else
    -- Guava's SmoothBursty starts empty, at the state's creation.
    b = { nextFree = c, stored = 0 }
  end
  b.j = j; b.i = i
  buckets[key] = b
  return b
end
local function spend(b, rate, at, cost)
  local stable = rate[2] / rate[1]
  local maxPermits = maxPermitsOf(rate)
  if at > b.nextFree then
    b.stored = math.min(maxPermits, b.stored + (at - b.nextFree) / stable)
    b.nextFree = at
  end
  local fromStore = math.min(cost, b.stored)
  b.nextFree = b.nextFree + (cost - fromStore) * stable
  b.stored = b.stored - fromStore
  b.dirty = true
end

-- The earliest time >= floor at which cost fits every rate of scope j, either strategy.
local function earliestIn(j, costs, floor)
  if not tokenBucket then return earliestInLog(j, costs, floor) end
  local at = floor
  for i, rate in ipairs(scopeRates(j)) do
    if costFor(costs, rateDim(rate)) > 0 then
      local b = bucket(j, i)
      if b.nextFree > at then at = b.nextFree end
    end
  end
  return at
end

-- Per-line ('lines'): no floor at the previous grant, and a request its own channel or key holds
-- back past now is told when (kind 5) with nothing reserved, as is every later one of its line.
-- 'fairlines' (weighted fairness): a line whose newest grant lies ahead of now is not held for that
-- alone, only by its rates: its next grant goes after it (the overall log's newest is never earlier).
-- 'ahead' and µs first: this call's grants no further ahead than that (a throttler settling below its estimates).
local opts = HEADER
if ARGV[HEADER + 1] == 'ahead' then
  local near = tonumber(ARGV[HEADER + 2])
  if near < ahead then ahead = near end
  opts = HEADER + 2
end
local fairLines = ARGV[opts + 1] == 'fairlines'
local lines = ARGV[opts + 1] == 'lines' or fairLines
local first = opts + 1
if lines then first = opts + 2 end
-- 'fairlines': (scope, cost, weight) triples, and the fleet's finish tags (fair-tags.ts).
local step = 2
if fairLines then step = 3 end
${FAIR_TAGS}
if fairLines then ahead = fairAhead(ahead) end
local lineLater = {}
local laterKind, laterWait
for index = first, #ARGV, step do
  local j = tonumber(ARGV[index])
  local cost = parseCosts(ARGV[index + 1])
  local fairStartAt, fairWeightOf, fairReport
  if fairLines then
    -- Weight 0: a send made on the local window during an outage, reported; counted whatever the order.
    fairReport = ARGV[index + 2] == '0'
    fairWeightOf = fairWeight(ARGV[index + 2])
    fairStartAt = fairStart(j)
  end
  local scopes = { 0 }
  if j > 0 then scopes[2] = j end
  -- The smallest limit its cost exceeds (in that limit's dimension), if any.
  local exceeded = nil
  for _, s in ipairs(scopes) do
    for _, rate in ipairs(scopeRates(s)) do
      if costFor(cost, rateDim(rate)) > rate[1] and (exceeded == nil or rate[1] < exceeded) then exceeded = rate[1] end
    end
  end
  if exceeded then
    results[#results + 1] = 4; results[#results + 1] = exceeded; results[#results + 1] = ''
  elseif laterKind then
    if fairLines and not lineLater[j] then
      -- No room for it either: it waits for the room at its start tag, as the one told first.
      fairWaits(j, fairStartAt, now + laterWait)
      lineLater[j] = laterWait
    end
    results[#results + 1] = laterKind; results[#results + 1] = laterWait; results[#results + 1] = ''
  elseif lineLater[j] then
    results[#results + 1] = 5; results[#results + 1] = lineLater[j]; results[#results + 1] = ''
  else
    -- Reading the logs first: a log found lost quarantines before this request's floor is taken.
    if not tokenBucket then
      for _, s in ipairs(scopes) do for _, d in ipairs(dimsOf(cost)) do scopeLog(s, d) end end
    end
    local at = now
    if not lines and last > at then at = last end
    if p > at then at = p end
    if qu > at then at = qu end
    local own = now
    if fairLines and j > 0 and not tokenBucket then own = earliestInLog(j, cost, now, true)
    elseif lines and j > 0 then own = earliestIn(j, cost, now) end
    -- Weighted: a line that starts after another waiting line leaves it the room.
    local blockedUntil = nil
    -- A token bucket's own next free time lies ahead by its own grants placed ahead: held only past that.
    if fairLines and tokenBucket and own - now <= ahead then own = now end
    -- Weighted: held by its own rates only past the room's time (fair-tags.ts).
    if fairLines then
      at = earliestIn(0, cost, at)
      if own <= at then own = now end
    end
    if fairLines and own <= now and not fairReport then blockedUntil = fairBlockedUntil(fairMember(j), fairStartAt, at) end
    if blockedUntil then
      lineLater[j] = math.max(1000, math.ceil(blockedUntil - now))
      fairWaits(j, fairStartAt, now + lineLater[j])
      results[#results + 1] = 5; results[#results + 1] = lineLater[j]; results[#results + 1] = ''
    elseif own > now then
      lineLater[j] = math.ceil(own - now)
      -- Weighted: back as its room can be reserved.
      if fairLines then
        if own - now > ahead then lineLater[j] = math.ceil(own - now - ahead) end
        fairHeldByOwnRates(j, now + lineLater[j], own)
      end
      results[#results + 1] = 5; results[#results + 1] = lineLater[j]; results[#results + 1] = ''
    else
    for _, s in ipairs(scopes) do if not (fairLines and s == 0) then at = earliestIn(s, cost, at) end end
    if at - now > ahead then
      laterWait = math.ceil(at - now - ahead)
      if qu - now > ahead then laterKind = 3 elseif p - now > ahead then laterKind = 2 else laterKind = 1 end
      if fairLines then
        fairWaits(j, fairStartAt, now + laterWait)
        lineLater[j] = laterWait
      end
      results[#results + 1] = laterKind; results[#results + 1] = laterWait; results[#results + 1] = ''
    else
      q = q + 1
      -- A token bucket's time may hold a fraction of a µs; the grant is told rounded up, never early.
      local costText = cost
      if dimCount > 0 then
        local parts = {}
        for d = 1, dimCount do parts[d] = int(cost[d] or 0) end
        costText = table.concat(parts, ',')
      end
      local member = int(math.ceil(at)) .. ':' .. costText .. ':' .. q .. ':' .. nonce
      for _, s in ipairs(scopes) do
        if tokenBucket then
          for i, rate in ipairs(scopeRates(s)) do
            local c = costFor(cost, rateDim(rate))
            if c > 0 then spend(bucket(s, i), rate, at, c) end
          end
        else
          for _, d in ipairs(dimsOf(cost)) do
            local log = scopeLog(s, d)
            log.total = log.total + costFor(cost, d)
            log.newest = at
            log.dirty = true
            redis.call('ZADD', logKey(s, d), int(log.total), member)
          end
        end
      end
      if at > last then last = at end
      if fairLines then fairGranted(j, fairStartAt, fairCost(cost), fairWeightOf) end
      results[#results + 1] = 0; results[#results + 1] = math.ceil(at - now); results[#results + 1] = member
    end
    end
  end
end

-- Oldest first, a few at a time: each grant is trimmed once, so this is O(1) per grant amortised.
local function trimLog(j, d)
  local cutoff = now - longestInterval(scopeRates(j), 0)
  local key = logKey(j, d)
  while true do
    local oldest = redis.call('ZRANGE', key, 0, 63)
    local count = 0
    for _, member in ipairs(oldest) do
      if timeOf(member) <= cutoff then count = count + 1 else break end
    end
    if count > 0 then redis.call('ZREMRANGEBYRANK', key, 0, count - 1) end
    if count < 64 then return end
  end
end

for _, log in pairs(logs) do
  if log.dirty then
    local j = log.j
    trimLog(j, log.d)
    redis.call('HSET', stateKey(j), stateField(j, newestField(log.d)), int(log.newest))
    if scopeIsKey(j) then indexKeyGrant(scopeName(j), log.newest) end
  end
end
for _, b in pairs(buckets) do
  if b.dirty then
    redis.call('HSET', stateKey(b.j), stateField(b.j, 'b' .. b.i), fmt(b.nextFree) .. ' ' .. fmt(b.stored))
  end
end
if fairLines then fairSave() end
end
${EPILOGUE}
for _, item in ipairs(results) do reply[#reply + 1] = item end
return reply
`;

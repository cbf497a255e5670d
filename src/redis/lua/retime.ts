/**
 * Re-times sliding-window grants a process could not send within the grace of their time (a slow
 * first reply, a late timer): each is moved, in place, to Redis' now (+ a lead: the caller's recent
 * round trip, at most the reserve-ahead bound) when it still fits every window
 * of every rate of its scopes there, and given back only when it does not. A grant whose time has not
 * come is left where it is (the reply still tells Redis' now: the caller learns its clock from it).
 * Giving every late grant back instead sent them behind the fleet's newest reservations: a window lost.
 *
 * A log keeps "every window (x - L, x] holds at most the limit" (L = interval + grace: reserve.ts).
 * Moving a grant of cost c from t0 to t1 > t0 adds c only to the windows holding t1 and not t0, those
 * ending at x in [max(t1, t0 + L), t1 + L); the largest of them ends at that first x or at a grant's
 * time inside the span, so those are the only windows checked: the grants of two L at most, found by
 * a binary search on rank (times grow with rank). The running totals of the grants it passes drop by
 * c, and its own is theirs + c: the log stays in time order, with exact running totals.
 *
 * With rates in dimensions, a grant moves in the log of every dimension it costs something in, checked
 * against that dimension's rates with its cost there.
 *
 * Part of the reserve script (reserve.ts), so that it is loaded with it: a late grant must not wait
 * for a script to be loaded. Script ARGV after the header: 'retime', the lead in µs, then triples (scope j, epoch the
 * reservation was granted in, member), in the order to re-time them (a later one sees the earlier
 * ones moved). Sliding window only. Reply: the header, then per grant a triple (kind, µs, member):
 * 0 kept or moved (µs = the wait from now, the member its new name), 5 given back (gone: moved
 * nowhere, from another epoch or already gone).
 */
export const RETIME_BODY = `
local function renamed(member, at) return int(at) .. string.match(member, '^[^:]+(:.*)$') end

-- Whether c more at t1, and c less at t0, keeps every window of scope j's rates (those of dimension d)
-- within its limit.
local ahead = declared.ahead
local function fitsMove(j, d, cost, t0, t1)
  local key = logKey(j, d)
  for _, rate in ipairs(scopeRates(j)) do
    if rateDim(rate) == d then
      local span = rate[2] + grace
      local from = t1
      if t0 + span > from then from = t0 + span end
      local times, costs = {}, {}
      local rank = firstRankAfter(key, from - span)
      local reading = true
      while reading do
        local chunk = redis.call('ZRANGE', key, rank, rank + 63)
        for _, member in ipairs(chunk) do
          local t = timeOf(member)
          if t >= t1 + span then reading = false; break end
          times[#times + 1] = t; costs[#costs + 1] = costFor(costsOfMember(member), d)
        end
        if #chunk < 64 then reading = false end
        rank = rank + 64
      end
      -- Windows (x - span, x] for x = from and every grant's time in [from, t1 + span).
      local left, right, held = 1, 1, 0
      local x = from
      local index = 0
      while true do
        while right <= #times and times[right] <= x do held = held + costs[right]; right = right + 1 end
        while left < right and times[left] <= x - span do held = held - costs[left]; left = left + 1 end
        if held + cost > rate[1] then return false end
        repeat index = index + 1 until index > #times or times[index] >= from
        if index > #times then break end
        x = times[index]
      end
    end
  end
  return true
end

-- Takes member (its running total old) out of a log and puts it back as newMember at time t1, after
-- every grant at or before t1 (nil: not put back); the totals of the grants it passes drop by cost.
local function moveInLog(key, member, old, cost, newMember, t1)
  redis.call('ZREM', key, member)
  recordRemoval(member)
  local passed = {}
  local cursor = old
  local reading = true
  while reading do
    local chunk = redis.call('ZRANGEBYSCORE', key, '(' .. int(cursor), '+inf', 'WITHSCORES', 'LIMIT', 0, 64)
    for i = 1, #chunk, 2 do
      if newMember and timeOf(chunk[i]) > t1 then reading = false; break end
      passed[#passed + 1] = { chunk[i], tonumber(chunk[i + 1]) }
      cursor = tonumber(chunk[i + 1])
    end
    if #chunk < 128 then reading = false end
  end
  local total = old - cost
  for _, item in ipairs(passed) do
    total = item[2] - cost
    redis.call('ZADD', key, int(total), item[1])
  end
  if newMember then redis.call('ZADD', key, int(total + cost), newMember) end
end

local touched = {}
local blocked = p > now or qu > now
-- Moved a little ahead of now (never past the reserve-ahead bound): by the caller's recent round
-- trip, so that the reply arrives before the new time has passed by the grace.
local lead = tonumber(ARGV[HEADER + 2])
if lead > ahead then lead = ahead end
local target = now + lead
for index = HEADER + 3, #ARGV, 3 do
  local j = tonumber(ARGV[index])
  local member = ARGV[index + 2]
  local scopes = { 0 }
  if j > 0 then scopes[2] = j end
  local olds = {}
  local present = declared.strategy == 'sliding-window' and not created and ARGV[index + 1] == e
  local costs = costsOfMember(member)
  local dims = dimsOf(costs)
  if present then
    for _, s in ipairs(scopes) do
      for _, d in ipairs(dims) do
        local key = logKey(s, d)
        olds[key] = redis.call('ZSCORE', key, member)
        if not olds[key] then present = false end
      end
    end
  end
  local t0 = timeOf(member)
  if present and t0 >= now then
    results[#results + 1] = 0; results[#results + 1] = math.ceil(t0 - now); results[#results + 1] = member
  else
    local fits = present and not blocked
    if fits then
      for _, s in ipairs(scopes) do
        for _, d in ipairs(dims) do fits = fits and fitsMove(s, d, costFor(costs, d), t0, target) end
      end
    end
    local newMember = nil
    if fits then newMember = renamed(member, target) end
    for _, s in ipairs(scopes) do
      for _, d in ipairs(dims) do
        local key = logKey(s, d)
        if olds[key] then
          moveInLog(key, member, tonumber(olds[key]), costFor(costs, d), newMember, target)
          touched[key] = { s = s, d = d }
        end
      end
    end
    if fits then
      results[#results + 1] = 0; results[#results + 1] = math.ceil(target - now); results[#results + 1] = newMember
    else
      results[#results + 1] = 5; results[#results + 1] = 0; results[#results + 1] = ''
    end
  end
end

-- As release.ts: each touched log's newest time, and the floor for new grants (the overall newest).
for key, at in pairs(touched) do refreshNewest(at.s, key, at.d) end
`;

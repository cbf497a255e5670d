/**
 * A delivered grant's actual cost replaces its estimate, in place, at the grant's own time: its member
 * is renamed with the new cost and its running total, and those of every later grant in its logs, move
 * by the difference (O(grants after it), as a release), so that the logs stay exact running totals in
 * time order. With rates in dimensions, each dimension's log moves by that dimension's difference, and
 * one the estimate cost nothing in gets the grant inserted at its own time (found by rank). An actual cost of 0 takes the grant out, as a release does. A saving is free for the next
 * reservation at once; an overrun holds every window that holds the grant's time, so later reservations
 * wait for room (grants already made are not moved).
 *
 * Part of the release script (release.ts), so that no script of its own must be loaded. Script ARGV after
 * the header: 'settle', then quadruples (scope j, epoch the reservation was granted in, member, actual
 * cost: a number, or with rates in dimensions one per dimension, 'c1,c2,...'). A reservation from
 * another epoch or already gone is ignored. Sliding window only (a token bucket keeps its estimate). Reply: the header.
 */
export const SETTLE_BODY = `
-- Moves every running total of a log above total by delta, and puts first (a score, member pair) in.
local function shiftAfter(key, total, delta, first)
  local later = redis.call('ZRANGEBYSCORE', key, '(' .. int(total), '+inf', 'WITHSCORES')
  local batch = first
  for i = 1, #later, 2 do
    batch[#batch + 1] = int(tonumber(later[i + 1]) + delta)
    batch[#batch + 1] = later[i]
    if #batch >= 1000 then redis.call('ZADD', key, unpack(batch)); batch = {} end
  end
  if #batch > 0 then redis.call('ZADD', key, unpack(batch)) end
end
local touched = {}
for index = HEADER + 2, #ARGV, 4 do
  local j = tonumber(ARGV[index])
  if ARGV[index + 1] == e then
    local member = ARGV[index + 2]
    local estimate = costsOfMember(member)
    local actual = parseCosts(ARGV[index + 3])
    local newMember = nil
    local positive = false
    for _, d in ipairs(dimsOf(actual)) do positive = true end
    if positive then
      local text = ARGV[index + 3]
      if dimCount > 0 then
        local parts = {}
        for d = 1, dimCount do parts[d] = int(actual[d] or 0) end
        text = table.concat(parts, ',')
      else
        text = int(actual)
      end
      newMember = string.match(member, '^([^:]+:)') .. text .. string.match(member, '^[^:]+:[^:]+(:.*)$')
    end
    local scopes = { 0 }
    if j > 0 then scopes[2] = j end
    for _, s in ipairs(scopes) do
      -- Held in this scope's logs (not given back, not trimmed): in the log of a dimension it costs something in.
      local held = false
      for _, d in ipairs(dimsOf(estimate)) do
        if redis.call('ZSCORE', logKey(s, d), member) then held = true end
      end
      if held and newMember ~= member then
        local dims = {}
        if dimCount == 0 then dims = { 0 } else for d = 1, dimCount do dims[d] = d end end
        for _, d in ipairs(dims) do
          local key = logKey(s, d)
          local before, after = costFor(estimate, d), costFor(actual, d)
          local score = redis.call('ZSCORE', key, member)
          if score then
            local total = tonumber(score)
            redis.call('ZREM', key, member)
            local first = {}
            if after > 0 then first = { int(total + after - before), newMember } end
            shiftAfter(key, total, after - before, first)
            touched[key] = { s = s, d = d }
          elseif before == 0 and after > 0 then
            -- A dimension the estimate did not cost: the grant goes in at its own time.
            local rank = firstRankAfter(key, timeOf(member))
            local total = 0
            if rank > 0 then
              total = tonumber(redis.call('ZRANGE', key, rank - 1, rank - 1, 'WITHSCORES')[2])
            else
              local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
              if oldest[1] then total = tonumber(oldest[2]) - costFor(costsOfMember(oldest[1]), d) end
            end
            shiftAfter(key, total, after, { int(total + after), newMember })
            touched[key] = { s = s, d = d }
          end
        end
        recordRemoval(member)
      end
    end
  end
end
for key, at in pairs(touched) do refreshNewest(at.s, key, at.d) end
`;

/**
 * A delivered grant's actual cost replaces its estimate, in place, at the grant's own time: its member
 * is renamed with the new cost and its running total, and those of every later grant in its logs, move
 * by the difference (O(grants after it), as a release), so that the logs stay exact running totals in
 * time order. An actual cost of 0 takes the grant out, as a release does. A saving is free for the next
 * reservation at once; an overrun holds every window that holds the grant's time, so later reservations
 * wait for room (grants already made are not moved).
 *
 * Part of the release script (release.ts), so that no script of its own must be loaded. Script ARGV after
 * the header: 'settle', then quadruples (scope j, epoch the reservation was granted in, member, actual
 * cost). A reservation from another epoch or already gone is ignored. Sliding window only (a token
 * bucket keeps its estimate). Reply: the header.
 */
export const SETTLE_BODY = `
local touched = {}
for index = HEADER + 2, #ARGV, 4 do
  local j = tonumber(ARGV[index])
  if ARGV[index + 1] == e then
    local member = ARGV[index + 2]
    local actual = tonumber(ARGV[index + 3])
    local delta = actual - costOf(member)
    local newMember = nil
    if actual > 0 then
      newMember = string.match(member, '^([^:]+:)') .. int(actual) .. string.match(member, '^[^:]+:[^:]+(:.*)$')
    end
    local scopes = { 0 }
    if j > 0 then scopes[2] = j end
    for _, s in ipairs(scopes) do
      local key = KEYS[2 + s]
      local score = redis.call('ZSCORE', key, member)
      if score and delta ~= 0 then
        local total = tonumber(score)
        local later = redis.call('ZRANGEBYSCORE', key, '(' .. int(total), '+inf', 'WITHSCORES')
        redis.call('ZREM', key, member)
        recordRemoval(member)
        local batch = {}
        if newMember then batch = { int(total + delta), newMember } end
        for i = 1, #later, 2 do
          batch[#batch + 1] = int(tonumber(later[i + 1]) + delta)
          batch[#batch + 1] = later[i]
          if #batch >= 1000 then redis.call('ZADD', key, unpack(batch)); batch = {} end
        end
        if #batch > 0 then redis.call('ZADD', key, unpack(batch)) end
        touched[s] = true
      end
    end
  end
end
for s in pairs(touched) do refreshNewest(s, KEYS[2 + s]) end
`;
